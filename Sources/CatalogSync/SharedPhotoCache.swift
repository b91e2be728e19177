import Foundation
import ImagePrep
import OpenMarketAPI

/// The prepared-photo cache on S3-compatible storage (`--cache s3://BUCKET/PREFIX`): one object
/// per prepared photo, `PREFIX/images/KEY`, KEY the local cache's (the source's SHA-256 and the
/// preparation's settings). Every machine of an import, and every later import, finds there what
/// one of them prepared.
public struct S3ImageStore: SharedImageStore {
    public let bucket: S3Bucket

    public init(_ bucket: S3Bucket) { self.bucket = bucket }

    /// The store at `address` with the environment's S3 account, checked once: a bucket that is
    /// missing or credentials it refuses stop the run before anything is sent.
    public static func open(_ address: String, settings: TransportSettings = TransportSettings()) throws(S3Failure) -> S3ImageStore {
        guard let location = S3Location(address) else {
            throw S3Failure("\(address): a shared photo cache is s3://BUCKET/PREFIX (a bucket of 3–63 lower-case letters, digits, dots and hyphens)", isSetup: true)
        }
        let bucket = S3Bucket(location, account: try S3Account.fromEnvironment(), settings: settings)
        try bucket.check()
        return S3ImageStore(bucket)
    }

    public var name: String { bucket.location.description }

    public func load(_ key: String) throws -> [UInt8]? {
        try bucket.get("images/\(key)").map { Array($0) }
    }

    public func save(_ key: String, _ data: [UInt8]) throws -> Bool {
        try bucket.putIfAbsent("images/\(key)", Data(data))
    }
}
