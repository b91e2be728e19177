import Hummingbird
import NIOCore

/// The request context: Hummingbird's core plus the connection, which fault
/// injection needs in order to drop it.
struct SandboxContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Bodies are collected explicitly with the sandbox's own cap.
    var maxUploadSize: Int { 8 * 1024 * 1024 }
}
