import Foundation

/// JSON arrays (one element at a time) and JSON Lines: rows by our column names, or
/// through a feed's map bound to the first object's keys.
extension ManifestReader {
    func openJSON(_ source: URL) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int) ?? 0
        guard size > 0 else { throw ManifestError(file: fileName, say: "m_empty_json", message: "the file is empty: it needs a JSON array of products") }
        do { jsonElements = try JSONArrayElements(url: source, check: encodingCheck) } catch {
            throw ManifestError(file: fileName, message: "cannot read the file")
        }
        // Read the first element now, so that a file that is no array at all fails at once.
        firstJSON = try nextJSONObject()
        if lastJSONElementBytes > 0 { estimatedRows = size / (lastJSONElementBytes + 2) }
    }

    /// The next object of a JSON array (streamed: see `JSONArrayElements`), read from its bytes
    /// (`JSONRowReader`); columns are learned as they appear, as in JSON Lines.
    func nextJSONObject() throws -> JSONObject? {
        var bytes: [UInt8] = []
        guard let position = try nextJSONElement(appendingTo: &bytes) else { return nil }
        let row: JSONObject
        do { row = try JSONRowReader.object(bytes) } catch {
            throw Self.objectFailure(error, line: false, number: position, file: fileName)
        }
        learnColumns(row.lazy.map(\.key))
        return row
    }

    /// The next element of a JSON array put on the end of `piece`, unread; its position from 1.
    func nextJSONElement(appendingTo piece: inout [UInt8]) throws -> Int? {
        guard let elements = jsonElements else { return nil }
        let count: Int?
        do { count = try elements.next(appendingTo: &piece) } catch let failure as JSONArrayElements.Failure { throw arrayFailure(failure) }
        guard let count else { return nil }
        jsonPosition += 1
        lastJSONElementBytes = count
        return jsonPosition
    }

    private func arrayFailure(_ failure: JSONArrayElements.Failure) -> ManifestError {
        switch failure {
        case .notAnArray: ManifestError(file: fileName, message: "must be a JSON array of objects, one per product")
        case .unclosed: ManifestError(file: fileName, message: "not valid JSON: the array is not closed (is the file cut off?)")
        case .trailing: ManifestError(file: fileName, message: "not valid JSON: text after the end of the array")
        }
    }

    /// What an item that is no JSON object is called: by its position in an array, its line in JSON Lines.
    static func objectFailure(_ error: JSONRowReader.Failure, line: Bool, number: Int, file: String) -> ManifestError {
        switch error {
        case .notAnObject:
            return ManifestError(file: file, message: line ? "line \(number) is not a JSON object" : "item \(number) is not a JSON object")
        case .invalid(let detail):
            return ManifestError(file: file, message: line ? "line \(number) is not valid JSON (\(detail))" : "not valid JSON at item \(number) (\(detail))")
        }
    }

    /// Columns of JSON objects, learned as rows are read (a key once: its column is kept).
    func learnColumns<Keys: Sequence<String>>(_ keys: Keys) {
        guard mapping == nil else { return }
        for key in keys where jsonColumns[key] == nil {
            if let column = jsonColumn(key) { columns.insert(column) }
            else if !unknownColumns.contains(key) { unknownColumns.append(key) }
        }
    }

    func nextJSON() throws -> RawRow? {
        while true {
            let object: JSONObject
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
        while let (number, line) = try lines.nextBytes() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            let row: JSONObject
            do { row = try JSONRowReader.object(line, repairingUTF8: true) } catch {
                throw Self.objectFailure(error, line: true, number: number, file: fileName)
            }
            learnColumns(row.lazy.map(\.key))
            if let raw = try mappedOrRaw(row, number: number) { return raw }
        }
        return nil
    }

    /// A JSON object as a row: through the map when there is one (bound to the first
    /// object's keys, in sorted order), else by our column names.
    func mappedOrRaw(_ object: JSONObject, number: Int) throws -> RawRow? {
        guard mapping != nil else { return rawRow(object, number: number) }
        if jsonHeaders == nil {
            let headers = object.map(\.key).sorted()
            try mapHeaders(headers.enumerated().map { ($0.offset, $0.element) })
            jsonHeaders = headers
        }
        var cells = (jsonHeaders ?? []).map { header in object.first { $0.key == header }?.cell.joined ?? "" }
        guard cells.contains(where: { !Self.isBlank($0) }) else { return nil }
        let notes = cells.contains(where: { $0.utf8.count > CellLimit.bytes })
            ? CellLimit.cap(&cells, file: fileName, row: number, headers: Dictionary(uniqueKeysWithValues: (jsonHeaders ?? []).enumerated().map { ($0.offset, $0.element) })) : []
        return bound?.row(cells, number: number, notes: notes)
    }

    /// A row by our column names: a key that names no column is left (and said once, as an
    /// unknown column); photos may be an array.
    func rawRow(_ object: JSONObject, number: Int) -> RawRow {
        Self.rawRow(object, number: number, file: fileName) { jsonColumn($0) }
    }

    /// A row by our column names, `column` naming a key's column.
    static func rawRow(_ object: JSONObject, number: Int, file: String, column columnOf: (String) -> Column?) -> RawRow {
        var values = RowValues()
        var images: [String]? = nil
        for (key, cell) in object {
            guard let column = columnOf(key) else { continue }
            switch cell {
            case .null: continue
            case .list(let list) where column == .images: images = list
            case .list(let list): values[column] = list.joined(separator: ";")
            case .text(let text), .nested(let text): values[column] = text
            }
        }
        return capped(RawRow(number: number, values: values, imageList: images), file: file)
    }

    /// A key's column, worked out once per key of the file (not per row).
    func jsonColumn(_ key: String) -> Column? {
        if let known = jsonColumns[key] { return known }
        let column = Column(header: key)
        jsonColumns[key] = column
        return column
    }
}

/// A product's JSON object: its keys and cells, in order.
typealias JSONObject = [(key: String, cell: JSONCell)]
