/// Why a command cannot start or go on, and the way on, English and Korean side by side (`{}`:
/// the values, in order): what `openmarket COMMAND:` says before it exits, and what the console
/// says of the same refusal.
extension WordTable {
    static let failures: [String: (en: String, ko: String)] = [
        // export
        "f_export_exists": ("{} exists: --overwrite to replace it", "{}이(가) 이미 있습니다: 바꾸려면 --overwrite를 주세요"),
        "f_export_holds": ("{} already holds an export ({}): choose another --out, or --overwrite to replace it",
                           "{}에 이미 내보낸 파일이 있습니다 ({}): 다른 --out을 고르거나, 바꾸려면 --overwrite를 주세요"),
        "f_export_complete": ("the export in {} is already complete: nothing to resume", "{}의 내보내기는 이미 끝났습니다: 이어 갈 것이 없습니다"),
        "f_export_interrupted": ("{} holds an interrupted export: add --resume to continue it, or --overwrite to start over",
                                 "{}에 중단된 내보내기가 있습니다: 이어 가려면 --resume, 처음부터 하려면 --overwrite를 주세요"),
        "f_export_other_options": ("the interrupted export in {} was made with other options ({}); resume it with the same ones, or start over with --overwrite",
                                   "{}의 중단된 내보내기는 다른 옵션으로 만들어졌습니다 ({}); 같은 옵션으로 이어 가거나 --overwrite로 처음부터 하세요"),
        "f_export_disk": ("{}; free some space and run again with --resume", "{}; 공간을 비우고 --resume으로 다시 실행하세요"),
        "f_cannot_write": ("cannot write {}", "{}에 쓸 수 없습니다"),
        "f_cannot_write_why": ("cannot write {}: {}", "{}에 쓸 수 없습니다: {}"),
        "f_vendor_me": ("--vendor me needs the vendor's credentials (--identifier and --secret, or a profile)",
                        "--vendor me에는 판매자의 인증 정보가 필요합니다 (--identifier와 --secret, 또는 프로필)"),
        "f_server_no_answer": ("the server does not answer: {}", "서버가 응답하지 않습니다: {}"),
        // migrate
        "f_source_no_answer": ("the source does not answer: {}", "원본 서버가 응답하지 않습니다: {}"),
        "f_migrate_servers": ("migrate needs both servers: --from and --to (or profiles that name them)",
                              "migrate에는 두 서버가 모두 필요합니다: --from과 --to (또는 서버를 지정한 프로필)"),
        "f_migrate_target": ("migrate needs the target's credentials: --to-identifier and --to-secret, or --to-profile",
                             "migrate에는 대상 계정의 인증 정보가 필요합니다: --to-identifier와 --to-secret, 또는 --to-profile"),
        "f_migrate_same": ("the source and the target are the same account on the same server", "원본과 대상이 같은 서버의 같은 계정입니다"),
        "f_migrate_delete_source": ("--then-delete-source needs the source's credentials: --from-identifier and --from-secret, or --from-profile",
                                    "--then-delete-source에는 원본 계정의 인증 정보가 필요합니다: --from-identifier와 --from-secret, 또는 --from-profile"),
        "f_migrate_vendor_me": ("--vendor me needs the source's credentials: --from-identifier and --from-secret, or --from-profile",
                                "--vendor me에는 원본 계정의 인증 정보가 필요합니다: --from-identifier와 --from-secret, 또는 --from-profile"),
        // feed schedule
        "f_feed_no_source": ("{} has no [source]: a scheduled run needs to fetch the file itself (url = \"https://…\", sftp://…, or path = \"/…\")",
                             "{}에 [source]가 없습니다: 예약 실행은 파일을 직접 가져와야 합니다 (url = \"https://…\", sftp://…, 또는 path = \"/…\")"),
        "f_feed_no_shop": ("{} names no shop: a scheduled run has no --server and no environment, and would sync a throwaway built-in sandbox. Add [target] profile = \"NAME\" to the feed, with a [profiles.NAME] (server, identifier, secret) in {}",
                           "{}에 상점이 없습니다: 예약 실행에는 --server도 환경 변수도 없어서 버려지는 내장 샌드박스에 동기화하게 됩니다. 피드에 [target] profile = \"NAME\"을 넣고, [profiles.NAME] (server, identifier, secret)을 {}에 두세요"),
        "f_feed_profile_missing": ("the feed's [target] profile \"{}\" is not in {} with a server: a scheduled run reads only that file. Add [profiles.{}] with server, identifier and secret",
                                   "피드의 [target] 프로필 \"{}\"이(가) {}에 server와 함께 있지 않습니다: 예약 실행은 그 파일만 읽습니다. [profiles.{}]에 server, identifier, secret을 넣으세요"),
        // sandbox, console
        "f_port_in_use": ("cannot listen on {}:{}: the port is already in use\nAnother sandbox may be running; stop it, or pick a free port with --port 0.",
                          "{}:{}에서 연결을 받을 수 없습니다: 포트가 이미 사용 중입니다\n다른 샌드박스가 실행 중일 수 있습니다; 그것을 멈추거나 --port 0으로 빈 포트를 고르세요."),
        "f_cannot_listen": ("cannot listen on {}:{}: {}", "{}:{}에서 연결을 받을 수 없습니다: {}"),
        "f_console_listen": ("cannot listen on port {} of a loopback address: {}", "루프백 주소의 포트 {}에서 연결을 받을 수 없습니다: {}"),
        "f_sandbox_api": ("--api must be one of {}, got '{}'", "--api는 {} 중 하나여야 합니다 (받은 값: '{}')"),
        "f_no_sandbox": ("no sandbox is running with its data in {}; start one with `openmarket sandbox` in another terminal (give both commands the same --data), then run this again",
                         "{}에 데이터를 둔 샌드박스가 실행 중이 아닙니다; 다른 터미널에서 `openmarket sandbox`로 하나를 시작하고 (두 명령에 같은 --data를 주세요) 다시 실행하세요"),
        // files
        "f_sheet_copy": ("{}: cannot keep a copy in {}: {}", "{}: {}에 사본을 둘 수 없습니다: {}"),
        "f_make_folder": ("cannot make the folder {} for {}: {}", "폴더 {}을(를) 만들 수 없습니다 ({}용): {}"),
        "f_images_from": ("--images-from {}: no such folder", "--images-from {}: 그런 폴더가 없습니다"),
        "f_not_repository": ("{} is not a backup repository (no config.json): `openmarket backup --repo {}` makes one",
                             "{}은(는) 백업 저장소가 아닙니다 (config.json 없음): `openmarket backup --repo {}`로 만드세요"),
        "f_photo_cache": ("shared photo cache: {}", "공유 사진 캐시: {}"),
        // undo (the terminal's and the console's)
        "f_undo_no_run": ("no such run of this account", "이 계정에 그런 실행이 없습니다"),
        "f_undo_nothing": ("that run wrote nothing: there is nothing to take back", "그 실행은 아무것도 쓰지 않았습니다: 되돌릴 것이 없습니다"),
        "f_undo_no_record": ("{} has no record of the run on this machine or in the shared state",
                             "{}: 이 컴퓨터에도 공유 상태에도 그 실행의 기록이 없습니다"),
        "f_undo_sharded": ("run {} is a sharded run: its record is in the shared state (--state)", "실행 {}은(는) 나눠 돌린 실행입니다: 기록은 공유 상태(--state)에 있습니다"),
        "f_undo_no_shared_record": ("no record of run {} in the shared state", "공유 상태에 실행 {}의 기록이 없습니다"),
        "f_undo_all_undone": ("run {} was undone already, every shard of it", "실행 {}은(는) 이미 모든 부분이 되돌려졌습니다"),
        "f_undo_already": ("already undone: see {}. To take the undo back: openmarket undo {}", "이미 되돌렸습니다: {}을(를) 보세요. 되돌린 것을 다시 되돌리려면: openmarket undo {}"),
    ]
}
