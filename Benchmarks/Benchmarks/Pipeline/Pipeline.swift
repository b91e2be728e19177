import Benchmark
import Foundation
import ImagePrep
import Manifest

/// The samples folder of the checkout (a real photo of each kind the tool meets).
private let samples = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("samples")

/// A CSV of `rows` products whose photos are two sample files (checked by their first bytes).
private func manifest(rows: Int) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-bench-\(rows)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, source) in [("a.jpg", "images/TEA-003/1.jpg"), ("b.jpg", "images/TEA-002/1.jpg")] {
        let target = folder.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.copyItem(at: samples.appendingPathComponent(source), to: target)
        }
    }
    var csv = "key,name,description,price,currency,discounted_price,stock,images\n"
    for i in 1...rows {
        csv += "SKU-\(i),\"상품 \(i), 녹차 라떼\",\"Row \(i): with, commas\",\(1000 + i % 900),KRW,0,\(i % 50),a.jpg;b.jpg\n"
    }
    let url = folder.appendingPathComponent("products.csv")
    try Data(csv.utf8).write(to: url)
    return url
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .peakMemoryResident],
                                           maxDuration: .seconds(10), maxIterations: 20)

    Benchmark("validate 50,000 CSV rows", configuration: .init(scalingFactor: .kilo)) { benchmark in
        let url = try manifest(rows: 50_000)
        benchmark.startMeasurement()
        let summary = try ManifestCheck.run(url, options: ValidationOptions(), onFileIssue: { _ in }, onRow: { _, _, _ in })
        blackHole(summary)
    }

    Benchmark("prepare a 4000 × 3000 photo (1.9 MB) under 300 KB") { benchmark in
        let bytes = try Data(contentsOf: samples.appendingPathComponent("images/GFT-001/1.jpg"))
        let preparer = try ImagePreparer(settings: ImagePrepSettings())
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try preparer.prepare(Array(bytes)))
        }
    }
}
