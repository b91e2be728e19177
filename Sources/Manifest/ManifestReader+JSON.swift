import Foundation

/// JSON arrays (one element at a time) and JSON Lines: rows by our column names, or
/// through a feed's map bound to the first object's keys.
extension ManifestReader {
    func openJSON(_ source: URL) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int) ?? 0
        guard size > 0 else { throw ManifestError(file: fileName, message: "the file is empty: it needs a JSON array of products") }
        do { jsonElements = try JSONArrayElements(url: source) } catch {
            throw ManifestError(file: fileName, message: "cannot read the file")
        }
        // Read the first element now, so that a file that is no array at all fails at once.
        firstJSON = try nextJSONObject()
        if lastJSONElementBytes > 0 { estimatedRows = size / (lastJSONElementBytes + 2) }
    }

    /// The next object of a JSON array (streamed: see `JSONArrayElements`); columns are
    /// learned as they appear, as in JSON Lines.
    func nextJSONObject() throws -> [String: Any]? {
        guard let elements = jsonElements else { return nil }
        let data: Data?
        do { data = try elements.next() } catch let failure as JSONArrayElements.Failure {
            switch failure {
            case .notAnArray: throw ManifestError(file: fileName, message: "must be a JSON array of objects, one per product")
            case .unclosed: throw ManifestError(file: fileName, message: "not valid JSON: the array is not closed (is the file cut off?)")
            case .trailing: throw ManifestError(file: fileName, message: "not valid JSON: text after the end of the array")
            }
        }
        guard let data else { return nil }
        jsonPosition += 1
        lastJSONElementBytes = data.count
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw ManifestError(file: fileName, message: "not valid JSON at item \(jsonPosition) (\(Self.jsonErrorDetail(error)))")
        }
        guard let row = object as? [String: Any] else {
            throw ManifestError(file: fileName, message: "item \(jsonPosition) is not a JSON object")
        }
        learnColumns(row.keys)
        return row
    }

    /// Columns of JSON objects, learned as rows are read.
    func learnColumns<Keys: Sequence<String>>(_ keys: Keys) {
        guard mapping == nil else { return }
        for key in keys {
            if let column = Column(header: key) { columns.insert(column) }
            else if !unknownColumns.contains(key) { unknownColumns.append(key) }
        }
    }

    static func jsonErrorDetail(_ error: any Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return text ?? "\(error)"
    }

    func nextJSON() throws -> RawRow? {
        while true {
            let object: [String: Any]
            if let first = firstJSON {
                firstJSON = nil
                object = first
            } else {
                guard let row = try nextJSONObject() else { return nil }
                object = row
            }
            // Only a mapped row can be nothing (every cell blank): read on.
            if let raw = try mappedOrRaw(object, number: jsonPosition) { return raw }
        }
    }

    func nextJSONLine() throws -> RawRow? {
        guard let lines else { return nil }
        while let (number, line) = try lines.next() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let object: Any
            do { object = try JSONSerialization.jsonObject(with: Data(line.utf8)) } catch {
                throw ManifestError(file: fileName, message: "line \(number) is not valid JSON (\(Self.jsonErrorDetail(error)))")
            }
            guard let row = object as? [String: Any] else {
                throw ManifestError(file: fileName, message: "line \(number) is not a JSON object")
            }
            learnColumns(row.keys)
            if let raw = try mappedOrRaw(row, number: number) { return raw }
        }
        return nil
    }

    /// A JSON object as a row: through the map when there is one (bound to the first
    /// object's keys, in sorted order), else by our column names.
    func mappedOrRaw(_ object: [String: Any], number: Int) throws -> RawRow? {
        guard mapping != nil else { return Self.rawRow(object, number: number) }
        if jsonHeaders == nil {
            let headers = object.keys.sorted()
            try mapHeaders(headers.enumerated().map { ($0.offset, $0.element) })
            jsonHeaders = headers
        }
        let cells = (jsonHeaders ?? []).map { header -> String in
            switch object[header] {
            case nil, is NSNull: ""
            case let list as [Any]: list.map { "\($0)" }.joined(separator: ";")
            case let number as NSNumber where !(object[header] is Bool): number.stringValue
            case let value?: "\(value)"
            }
        }
        guard cells.contains(where: { !Self.isBlank($0) }) else { return nil }
        return bound?.row(cells, number: number, notes: [])
    }

    static func rawRow(_ object: [String: Any], number: Int) -> RawRow {
        var values: [Column: String] = [:]
        var images: [String]? = nil
        for (key, value) in object {
            guard let column = Column(header: key) else { continue }
            if column == .images, let list = value as? [Any] {
                images = list.map { "\($0)" }
                continue
            }
            switch value {
            case is NSNull: continue
            case let flag as Bool where !(value is Int) && !(value is Double):
                values[column] = flag ? "true" : "false"
            case let number as NSNumber:
                values[column] = number.stringValue
            case let text as String: values[column] = text
            default: values[column] = "\(value)"
            }
        }
        return RawRow(number: number, values: values, imageList: images)
    }
}
