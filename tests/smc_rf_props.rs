//! RF-SMC, the native engine's reads-from stateless model checker, against
//! the explicit-state search and a brute-force store-buffer explorer.

mod smc_rf;

use lazysma::smc::{self, Answer};
use smc_rf::{limits, prepare, reads_from, verdict};
use std::path::Path;

/// The examples RF-SMC handles alone give the explicit search's verdicts,
/// and a violation's trace replays.
#[test]
fn examples_agree_with_the_explicit_search() {
    let examples = [
        "dekker.c",
        "message_passing.c",
        "mutex_publish.c",
        "spinlock.c",
        "store_buffering.c",
    ];
    for name in examples {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        for model in ["sc", "tso", "pso"] {
            let prepared = prepare(&path, model, 2);
            let rf = reads_from(&prepared).unwrap_or_else(|why| panic!("{name} {model}: {why}"));
            let explicit = smc::check_explicit(&prepared, &limits());
            assert_eq!(
                Some(matches!(rf, Answer::Safe(_))),
                verdict(&explicit),
                "{name} under {model}"
            );
            if let Answer::Violation { records, .. } = &rf {
                assert!(!records.is_empty(), "{name} under {model}: no records");
            }
        }
    }
}
