# Sourced by the benchmarks that import generated rows.
# sample_photos DIR: three small photos of samples/ as DIR/a.jpg, b.jpg and c.jpg.
sample_photos() {
  cp samples/images/TEA-003/1.jpg "$1/a.jpg"
  cp samples/images/SNK-002/1.jpg "$1/b.jpg"
  cp samples/images/TEA-004/1.jpg "$1/c.jpg"
}
# product_sheet N FILE PREFIX PHOTOS: a sheet of N products keyed PREFIX1…, named "PREFIX product i",
# each with the photos PHOTOS (`a.jpg;b.jpg;c.jpg`).
product_sheet() {
  awk -v n="$1" -v p="$3" -v photos="$4" 'BEGIN { print "key,name,price,currency,stock,images"
    for (i = 1; i <= n; i++) printf "%s%d,%s product %d,%d,KRW,%d,%s\n", p, i, p, i, 1000 + i, i % 9, photos }' >"$2"
}
