import ArgumentParser
import CatalogSync
import Foundation
import Manifest
import OpenMarketAPI
import ShopState
import Support

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv
}

struct HealthCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check that the server answers (exit 0), or say why not (exit 3).")

    @OptionGroup var server: ServerOptions

    /// One quick retry at most: a health check should answer fast.
    func configure(_ client: inout ClientConfiguration) { client.retry.maxAttempts = 2 }

    func execute(on connection: Connection) async throws -> ExitStatus {
        let url = connection.client.configuration.server.absoluteString
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let (answer, generation) = try await connection.client.run { (try $0.health(), try $0.generation()) }
            let elapsed = clock.now - start
            let said = VisibleText.line(answer.trimmingCharacters(in: .whitespacesAndNewlines))
            Console.line(Console.say("t_health_answered", url, said, elapsed.formatted(.units(allowed: [.milliseconds]))))
            Console.line(Console.say("t_health_generation", generation.summary))
            return .ok
        } catch {
            // Whatever the reason, the server is not there to be used: 3, as the help says.
            throw CommandFailure(CommandFailure.from(error).description, exitCode: .unreachable)
        }
    }
}

struct ListCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List products in the server's order (newest first, except on a 2021 server).",
        discussion: """
            Examples:
              openmarket list --search 녹차
              openmarket list --all --format csv > catalog.csv
            """)

    @OptionGroup var server: ServerOptions

    @Option(name: .long, help: "Only products whose name contains this text (case-insensitive).")
    var search: String?

    @Option(name: .long, help: "Page number, from 1.")
    var page = 1

    @Option(name: .customLong("per-page"), help: "Products per page (the sandbox accepts up to 500).")
    var perPage = 20

    @Flag(name: .long, help: "Every page, not just one (each product once, even if the catalog changes meanwhile).")
    var all = false

    @Option(name: .long, help: "table, json or csv.")
    var format: OutputFormat = .table

    func validate() throws {
        guard page >= 1 else { throw ValidationError(Console.say("arg_at_least", "--page", "1")) }
        guard perPage >= 1 else { throw ValidationError(Console.say("arg_at_least", "--per-page", "1")) }
    }

    func execute(on connection: Connection) async throws -> ExitStatus {
        let (page, perPage, search, all) = (self.page, self.perPage, self.search, self.all)
        let (products, total) = try await connection.client.run { client in
            guard all else {
                let result = try client.page(page, perPage: perPage, search: search)
                return (result.pages, result.totalCount)
            }
            return try client.allProducts(search: search, perPage: perPage)
        }
        try printList(products, total: total)
        return .ok
    }

    private func printList(_ products: [ProductSummary], total: Int) throws {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes, .sortedKeys]
            Console.line(String(decoding: try encoder.encode(products), as: UTF8.self))
        case .csv:
            let stream = OutputStream(toMemory: ())
            stream.open()
            let csv = CSVLines(stream, newline: "\n")
            try csv.write(row: ["id", "name", "price", "currency", "discounted_price", "stock", "vendor_id", "created_at"])
            for p in products {
                try csv.write(row: [String(p.id), p.name, p.price.description, p.currency, p.discountedPrice.description,
                                    String(p.stock), String(p.vendorId), OpenMarketTimestamp.format(p.createdAt)])
            }
            stream.close()
            let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
            Console.out(data)
            Console.out(Data("\n".utf8))
        case .table where products.isEmpty:
            Console.line(search.map { Console.say("t_list_none_search", $0, String(total)) } ?? Console.say("t_list_none", String(page), String(total)))
        case .table:
            Console.line(Self.table(products))
            Console.line(all ? Console.say("t_list_all", String(products.count), String(total))
                             : Console.say("t_list_page", String(page), String(products.count), String(total)))
        }
    }


    static func table(_ products: [ProductSummary]) -> String {
        let header = ["id", "name", "price", "discount", "stock"].map { Console.say("list_col:\($0)") }
        let rows = products.map { p in
            [String(p.id), TerminalWidth.truncate(VisibleText.line(p.name), to: 40), PriceFormat.format(p.price, currency: VisibleText.line(p.currency)),
             p.discountedPrice > 0 ? "-" + PriceFormat.format(p.discountedPrice, currency: p.currency) : "",
             p.stock == 0 ? Console.say("t_sold_out") : String(p.stock)]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { TerminalWidth.of($0[column]) }.max() ?? 0
        }
        let rightAligned: Set<Int> = [0, 2, 3, 4]
        return ([header] + rows).map { row in
            row.indices.map { TerminalWidth.pad(row[$0], to: widths[$0], right: rightAligned.contains($0)) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

struct ShowCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one product with its images, by merchant key or id.",
        discussion: """
            NAME is a merchant key this account linked (TEA-001), or a product id (#12 or 12). \
            A bare number is the key of that name when one is linked, else the id.

            Examples:
              openmarket show TEA-001
              openmarket show '#5120' --format json
            """)

    @OptionGroup var server: ServerOptions

    @Argument(help: ArgumentHelp("A merchant key, or a product id (#ID or ID).", valueName: "name"))
    var name: String

    @Option(name: .long, help: "table or json.")
    var format: OutputFormat = .table

    func execute(on connection: Connection) async throws -> ExitStatus {
        let id = try Self.productID(name, account: connection.account)
        let detail = try await connection.client.run { try $0.product(id: id) }
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes, .sortedKeys]
            Console.line(String(decoding: try encoder.encode(detail), as: UTF8.self))
        } else {
            Console.line(lines(detail, sandbox: connection.sandbox != nil, server: connection.client.address).joined(separator: "\n"))
        }
        return .ok
    }

    private func lines(_ detail: ProductDetail, sandbox: Bool, server: String) -> [String] {
        let p = detail.summary
        let images = detail.images ?? []
        // The labels lined up, however long the reader's language makes them.
        let labels = ["price", "stock", "vendor", "created", "updated", "thumbnail", "page"].map { Console.say("show:\($0)") }
            + [Console.say("show:image", String(max(images.count, 1)))]
        let width = (labels.map(\.count).max() ?? 9) + 4
        func labelled(_ label: String, _ value: String) -> String { (label + ":").padding(toLength: width, withPad: " ", startingAt: 0) + value }
        var lines = [
            "\(VisibleText.line(p.name))  " + Console.say("show_id", String(p.id)),
            labelled(Console.say("show:price"), PriceFormat.format(p.price, currency: p.currency))
                + (p.discountedPrice > 0 ? "  " + Console.say("show_discount", PriceFormat.format(p.discountedPrice, currency: p.currency),
                                                              PriceFormat.format(p.bargainPrice, currency: p.currency)) : ""),
            labelled(Console.say("show:stock"), p.stock == 0 ? Console.say("t_sold_out") : String(p.stock)),
            labelled(Console.say("show:vendor"), p.vendorId > 0 ? "\(VisibleText.line(detail.vendors?.name ?? p.vendorName ?? "?")) " + Console.say("show_id", String(p.vendorId))
                                                             : Console.say("show_vendor_none")),
            labelled(Console.say("show:created"), OpenMarketTimestamp.format(p.createdAt)),
            labelled(Console.say("show:updated"), OpenMarketTimestamp.format(p.issuedAt)),
            labelled(Console.say("show:thumbnail"), VisibleText.line(p.thumbnail)),
        ]
        for (index, image) in images.enumerated() {
            lines.append(labelled(Console.say("show:image", String(index + 1)), "\(VisibleText.line(image.url))  " + Console.say("show_id", String(image.id))))
        }
        if sandbox {
            // The in-process sandbox has stopped: its addresses are where `openmarket sandbox` serves them.
            let here = server.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            lines = lines.map { $0.replacingOccurrences(of: here, with: Connection.sandboxPages) }
            lines.append(labelled(Console.say("show:page"), "\(Connection.sandboxPages)/products/\(p.id)  " + Console.say("show_page_note")))
        }
        if let description = p.description, !description.isEmpty {
            lines.append("")
            lines.append(description)
        }
        return lines
    }
}

extension ShowCommand {
    /// The product a name means, as `delete` reads names (a linked key, `#ID`, a bare number).
    static func productID(_ name: String, account: AccountState) throws -> Int {
        let store = try account.store()
        switch try DeleteRows.productID(named: name, link: { try store?.link($0) }) {
        case .success(let found): return found.id
        case .failure(let unknown): throw CommandFailure(unknown.message, exitCode: .badInput)
        }
    }
}

struct DeleteCommand: ShopCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete products of your account by merchant key or #ID, recorded so that undo brings them back.",
        discussion: """
            Each NAME is a merchant key (TEA-001) or a product id written #12. A bare number is \
            the key of that name when one is linked, else the product id (the report says which). \
            Only this vendor's products are deleted: a name that is no product of the account \
            fails, naming it; the others go on.

            A delete is a run like an import: each product is saved with its photos in the run's \
            record before it is deleted, its key is unlinked, and `openmarket undo REPORT_DIR` \
            makes it again with the same key (the merchant's sheet then finds it unchanged). \
            `openmarket runs` lists it. --dry-run says what would be deleted.

            Exit codes: 0 every named product deleted; 1 some failed (see the report); 2 no \
            credentials; 3 the server is unreachable or refused the credentials.

            Examples:
              openmarket delete TEA-001
              openmarket delete TEA-001 TEA-002 '#5120' --dry-run
            """)

    @OptionGroup var server: ServerOptions

    @Argument(help: ArgumentHelp("Merchant keys, or product ids written #ID.", valueName: "name"))
    var names: [String]

    @Flag(name: .customLong("dry-run"), help: "Say what would be deleted; nothing is written.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("Folder for the report and the run's record (default: a new folder under the account's state folder, printed).", valueName: "dir"))
    var report: String?

    @OptionGroup var linkStore: LinksOption

    func validate() throws {
        guard !names.isEmpty else { throw ValidationError(Console.say("arg_give_key")) }
    }

    func execute(on connection: Connection) async throws -> ExitStatus {
        var choices = RunChoices()
        choices.links = linkStore.given
        choices.dryRun = dryRun
        choices.report = report.map { .given(URL(fileURLWithPath: $0)) }
        let result = try await Runner.sync(DeleteRows(names), connection.request(choices))
        return await Runner.conclude(result, command: "delete", connection: connection)
    }
}
