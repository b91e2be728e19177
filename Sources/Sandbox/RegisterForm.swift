import Foundation
import ImagePrep
import MultipartKit
import NIOCore
import Support

/// One part of a `multipart/form-data` body.
struct FormPart: Sendable {
    var name: String?
    var filename: String?
    var contentType: String?
    var body: [UInt8]
}

/// A register request's body: the `params` JSON part and the `images` parts,
/// read with MultipartKit's parser (never by hand).
struct RegisterForm: Sendable {
    var params: [UInt8]
    var images: [FormPart]

    /// The boundary of a `multipart/form-data` Content-Type, or a 400 that says
    /// what to send instead.
    static func boundary(contentType: String?) throws -> String {
        guard let contentType else {
            throw SandboxError.badRequest("Content-Type: register needs multipart/form-data with a params part and images parts")
        }
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else {
            throw SandboxError.badRequest("Content-Type: register needs multipart/form-data, got \(pieces.first ?? "")")
        }
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                if !value.isEmpty && value.utf8.count <= 200 { return value }
            }
        }
        throw SandboxError.badRequest("Content-Type: multipart/form-data without a boundary")
    }

    /// Splits the body into parts, enforcing the part-count cap.
    static func parts(of body: ByteBuffer, boundary: String, maxParts: Int) throws -> [FormPart] {
        let parser = MultipartParser(boundary: boundary)
        var parts: [FormPart] = []
        var headers: [(String, String)] = []
        var current: [UInt8] = []
        var overflow = false
        parser.onHeader = { name, value in headers.append((name, value)) }
        parser.onBody = { buffer in
            current.append(contentsOf: buffer.readableBytesView)
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        }
        parser.onPartComplete = {
            if parts.count >= maxParts { overflow = true }
            if !overflow { parts.append(part(headers: headers, body: current)) }
            headers = []
            current = []
        }
        do {
            try parser.execute(body)
        } catch {
            throw SandboxError.badRequest("body: not a valid multipart/form-data body for boundary '\(boundary)'")
        }
        if overflow {
            throw SandboxError.badRequest("body: more than \(maxParts) parts; send one params part and at most 5 images parts")
        }
        return parts
    }

    private static func part(headers: [(String, String)], body: [UInt8]) -> FormPart {
        var part = FormPart(name: nil, filename: nil, contentType: nil, body: body)
        for (name, value) in headers {
            switch name.lowercased() {
            case "content-disposition":
                for piece in value.split(separator: ";").dropFirst() {
                    let pair = piece.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2 else { continue }
                    let key = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
                    let raw = pair[1].trimmingCharacters(in: .whitespaces)
                    let unquoted = raw.hasPrefix("\"") && raw.hasSuffix("\"") && raw.count >= 2
                        ? String(raw.dropFirst().dropLast()) : raw
                    if key == "name" { part.name = unquoted }
                    if key == "filename" { part.filename = unquoted }
                }
            case "content-type":
                part.contentType = value.trimmingCharacters(in: .whitespaces)
            default:
                break
            }
        }
        return part
    }

    init(params: [UInt8], images: [FormPart]) {
        self.params = params
        self.images = images
    }

    /// Groups parts into `params` and `images`, refusing anything else.
    init(parts: [FormPart]) throws {
        var params: [UInt8]?
        var images: [FormPart] = []
        for part in parts {
            switch part.name {
            case "params":
                guard params == nil else { throw SandboxError.badRequest("params: sent more than once") }
                let type = part.contentType?.split(separator: ";").first?
                    .trimmingCharacters(in: .whitespaces).lowercased()
                guard type == "application/json" else {
                    throw SandboxError.badRequest(
                        "params: must be JSON text with Content-Type: application/json, got \(part.contentType ?? "no Content-Type")")
                }
                params = part.body
            case "images":
                images.append(part)
            case let name:
                throw SandboxError.badRequest("body: unknown part '\(name ?? "")'; send a params part and images parts")
            }
        }
        guard let params else { throw SandboxError.badRequest("params: required (a JSON part named params)") }
        self.params = params
        self.images = images
    }

    /// Checks the images' count, size and content. (Thumbnails are made when first asked for.)
    func prepareImages(maxBytes: Int) throws -> [IncomingImage] {
        guard !images.isEmpty else { throw SandboxError.badRequest("images: at least 1 image is required") }
        guard images.count <= 5 else {
            throw SandboxError.badRequest("images: at most 5 images, got \(images.count)")
        }
        return try images.enumerated().map { index, part in
            let label = "images[\(index + 1)]" + (part.filename.map { " '\($0)'" } ?? "")
            guard part.body.count <= maxBytes else {
                throw SandboxError.tooLarge("\(label): \(part.body.count) bytes, over the limit of \(maxBytes) bytes")
            }
            guard let format = ImageFormat.sniff(part.body) else {
                throw SandboxError.badRequest("\(label): not a JPEG or PNG file (judged by its content, not its name)")
            }
            return IncomingImage(format: format, bytes: part.body)
        }
    }
}
