/// What the terminal says of a run and a check, English and Korean side by side in the one
/// table (`{}`: the values, in order). The English is the CLI's as scripts and logs have read
/// it; Korean under a Korean locale or `--lang ko`. Rule names and status words stay beside the
/// Korean as the stable names scripts match.
extension WordTable {
    static let terminal: [String: (en: String, ko: String)] = [
        // import, feed run, undo, migrate: the summary
        "t_run": ("{} in {} s{}{}", "{} · {}초{}{}"),
        "t_rate": (" ({} products/s{})", " (초당 상품 {}개{})"),
        "t_dry": (" — dry run, nothing was written", " — 미리보기(dry run): 아무것도 쓰지 않았습니다"),
        "t_fields_changed": ("  fields changed: {}", "  바뀐 항목: {}"),
        "t_fields_would": ("  fields that would change: {}", "  바뀔 항목: {}"),
        "t_stock_zero": ("; stock set to 0: {}", "; 재고를 0으로: {}"),
        "t_photos_differ_one": ("  1 row has photos that differ from its product's (the report names them): the API cannot replace photos. --replace-photos makes that product again with the new photos: a new product id (links to the old one break), the old product deleted, the key kept",
                                "  행 1개의 사진이 상품의 사진과 다릅니다 (보고서에 있음): API로는 사진을 바꿀 수 없습니다. --replace-photos를 주면 새 사진으로 상품을 다시 만듭니다: 상품 번호가 새로 생기고(예전 번호로 된 링크는 끊김) 예전 상품은 삭제되며 상품코드는 그대로입니다"),
        "t_photos_differ": ("  {} rows have photos that differ from their products' (the report names them): the API cannot replace photos. --replace-photos makes those products again with the new photos: new product ids (links to the old ones break), the old products deleted, the keys kept",
                            "  행 {}개의 사진이 상품의 사진과 다릅니다 (보고서에 있음): API로는 사진을 바꿀 수 없습니다. --replace-photos를 주면 새 사진으로 상품을 다시 만듭니다: 상품 번호가 새로 생기고(예전 번호로 된 링크는 끊김) 예전 상품은 삭제되며 상품코드는 그대로입니다"),
        "t_row": ("row {}", "{}행"),
        "t_row_failed": ("  row {} failed: {}", "  {}행 실패 (failed): {}"),
        "t_more_failed": ("  … and {} more in the report", "  … 나머지 {}행은 보고서에 있습니다"),
        "t_more_rows": ("  … the report lists every row", "  … 모든 행은 보고서에 있습니다"),
        "t_more_skipped": ("  … {} more skipped rows in the report", "  … 제외된 행 {}개가 더 보고서에 있습니다"),
        "t_stopped": ("Stopped: {}. Run the same command again to continue where it stopped (nothing is sent twice):\n  {}",
                      "멈춤: {}. 같은 명령을 다시 실행하면 멈춘 곳부터 이어 갑니다 (같은 것을 두 번 보내지 않습니다):\n  {}"),
        "t_report": ("Report: {}", "보고서: {}"),
        "t_undo_lead": ("To take this run back: {}", "이 실행을 되돌리려면: {}"),
        "t_sandbox_look": ("To look at the products: run `openmarket sandbox` and open http://127.0.0.1:8080/ (the same data).",
                           "상품을 보려면: `openmarket sandbox`를 실행하고 http://127.0.0.1:8080/ 을 여세요 (같은 데이터)."),
        // feed run
        "t_feed_report": ("  report: {}", "  보고서: {}"),
        "t_feed_undo_lead": ("  to take it back: ", "  되돌리려면: "),
        // export
        "t_export_done": ("Exported {} products to {} in {} s ({} products/s{})", "상품 {}개를 {}(으)로 내보냈습니다 · {}초 (초당 상품 {}개{})"),
        "t_export_reads": (", up to {} reads at once", ", 한 번에 최대 {}개 읽기"),
        "t_export_photos": ("; {} photos downloaded ({})", "; 사진 {}장 내려받음 ({})"),
        "t_export_photos_kept": (", {} kept from the interrupted run", ", 중단된 실행에서 {}장 유지"),
        "t_export_checksums": (", checksums in checksums.sha256", ", 체크섬은 checksums.sha256에"),
        "t_export_stopped": ("Stopped ({}) after {} of {} products; nothing is under {} yet.", "멈춤 ({}): 상품 {}개를 읽은 뒤 (목록에는 {}개); {}에는 아직 아무것도 없습니다."),
        "t_export_resume": ("Continue with the same command and --resume.", "같은 명령에 --resume을 붙여 이어 가세요."),
        // console
        "t_console_shared": ("No loopback address of its own could be had: the console is on 127.0.0.1, which every local server shares; its pages and cookies are under the secret path above, so no other server is sent them.",
                             "콘솔 전용 루프백 주소를 얻지 못해 모든 로컬 서버가 함께 쓰는 127.0.0.1에서 엽니다: 페이지와 쿠키는 위 주소의 비밀 경로 아래에만 있어 다른 서버에는 보내지지 않습니다."),
        // the progress line
        "t_progress": ("{}/{} {} ({}%), {} failed{}{}{}", "{}/{} {} ({}%), 실패 {}{}{}{}"),
        "t_progress_left": (", about {} left", ", 남은 시간 약 {}"),
        "t_left": ("{} left", "남은 시간 {}"),
        "t_failed_count": ("{} failed", "실패 {}"),
        "t_rows": ("rows", "행"),
        // validate
        "t_validate_row": ("row {}:", "{}행:"),
        "t_validate_rows": ("{}: {} rows, {} valid, {} with errors, {} with warnings", "{}: {}행, 문제없음 {}, 오류 {}, 경고 {}"),
        "t_validate_row_one": ("{}: 1 row, {} valid, {} with errors, {} with warnings", "{}: 1행, 문제없음 {}, 오류 {}, 경고 {}"),
        "t_validate_update_only": (", {} only as updates of products already in the shop (as new products they fail: {})",
                                   ", {}행은 쇼핑몰에 이미 있는 상품의 수정으로만 가능 (새 상품으로는 실패: {})"),
        "t_validate_skipped": (", {} skipped by the feed's filter", ", 피드의 조건으로 제외 {}"),
        "t_validate_file_errors": (", {} file errors", ", 파일 오류 {}"),
        "t_validate_file_error": (", 1 file error", ", 파일 오류 1"),
        "t_validate_file_warnings": (", {} file warnings (above)", ", 파일 경고 {} (위)"),
        "t_validate_file_warning": (", 1 file warning (above)", ", 파일 경고 1 (위)"),
        "t_left_out": ("left out: {}", "제외됨: {}"),
        "t_no_such_file": ("{}: no such file", "{}: 그런 파일이 없습니다"),
        "t_sandbox_used": ("Using the built-in sandbox at {} (data: {}); pass --server for a real server.",
                           "내장 샌드박스를 씁니다: {} (데이터: {}). 실제 서버는 --server로 지정하세요."),
        "t_sandbox_new": ("That sandbox is new and empty: each folder has its own (./.openmarket/sandbox), so run from this folder again to find these products.",
                          "이 샌드박스는 새로 만들어져 비어 있습니다: 폴더마다 따로 있으니 (./.openmarket/sandbox) 이 상품들을 다시 보려면 이 폴더에서 실행하세요."),
        "t_error": ("error", "오류"),
        "t_warning": ("warning", "경고"),
    ]
}
