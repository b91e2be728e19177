import CCurl

public enum OpenMarketVersion {
    public static let tool = "0.1.0"

    /// The libcurl this binary runs on, as libcurl reports it.
    public static var libcurl: String {
        guard let info = om_curl_version_info(), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }

    /// The TLS library libcurl uses (nil: none, https cannot work) and whether it speaks HTTP/2.
    public static var libcurlFeatures: (tls: String?, http2: Bool) {
        guard let info = om_curl_version_info() else { return (nil, false) }
        let tls = info.pointee.ssl_version.map { String(cString: $0) }
        let http2Bit: Int32 = 1 << 16   // CURL_VERSION_HTTP2
        return (tls, info.pointee.features & http2Bit != 0)
    }

    public static var userAgent: String { "openmarket/\(tool)" }
}
