/// The commented feed file `openmarket template --format feed` writes (and
/// `templates/feed.toml` is a copy of: a test keeps them the same).
public enum FeedTemplate {
    public static let text = """
        # A feed file: how a supplier's file becomes your products.
        # Try it on their file:   openmarket feed test THIS.toml THEIR-FILE.csv
        # Check every row:        openmarket validate THEIR-FILE.csv --feed THIS.toml
        # Send what changed:      openmarket import THEIR-FILE.csv --feed THIS.toml [--dry-run]
        # Keep it as ~/.config/openmarket/feeds/NAME.toml to write --feed NAME.

        # Your field = the supplier's header (letter case and spaces do not matter), or "#3"
        # for their third column. Fields: key, id, name, description, price, currency,
        # discounted_price, stock, images; and cost, their price to you.
        # key (or name) is required; a file without some of the others (a stock-only file)
        # leaves those fields as the shop has them.
        [columns]
        key = "상품코드"
        name = "상품명"
        cost = "공급가"          # with [prices] below: your selling price is made from it
        stock = "재고수량"
        images = "이미지"        # URLs or files, separated by ; or |
        description = "상세설명"

        # The same value on every row.
        [constants]
        currency = "KRW"

        # The supplier's words for values, per field.
        [maps.stock]
        "품절" = 0
        "재고없음" = 0

        # Selling price = cost × (1 + markup_percent / 100) + add, rounded to a multiple of
        # round_to (up, down or nearest), never below cost × (1 + min_margin_percent / 100)
        # rounded up. Exact decimal arithmetic: 8,200 × 1.30 = 10,660 → 10,700.
        # Without round_to: to the won (KRW, JPY) or the cent (USD), nearest.
        [prices]
        markup_percent = 30
        add = 0
        round_to = 100
        round = "up"
        min_margin_percent = 10

        # Rules, in order: the first that matches a row replaces the settings it names.
        # when = { "their header" = "value" } or = ["one", "another"] (all must match);
        # cost_at_least / cost_below test the cost.
        [[prices.rules]]
        when = { "카테고리" = "가전" }
        markup_percent = 15

        [[prices.rules]]
        cost_below = 2000
        markup_percent = 0
        add = 800

        # Rows left out: skip those whose cell is one of the values; only keeps just those
        # that match (use one or both).
        [filter]
        skip = { "카테고리" = ["샘플", "단종"] }
        # only = { "판매상태" = "판매중" }

        # Fields written when a product is made and never overwritten after (your own
        # description, edited in the shop, survives the supplier's next file).
        [protect]
        fields = ["description"]

        """
}
