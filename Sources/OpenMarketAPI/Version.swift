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

    public static var userAgent: String { "openmarket/\(tool)" }
}
