//! Checks every SMA implementation (`sma/*.h`) with CBMC on the hand-written
//! harnesses of `tests/sma/`: store buffering, message passing, fences,
//! read-modify-writes, mutexes, heap blocks and the location checks. Each
//! harness also compiles with `gcc -fsyntax-only -Werror`.

use crate::sma_support as support;

use support::{Model, Status};

fn expected(reachable: bool) -> Status {
    // A property `!outcome` fails exactly when the outcome is reachable.
    if reachable {
        Status::Failure
    } else {
        Status::Success
    }
}

#[test]
fn store_buffering_is_reachable_under_tso_and_pso_only() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("sb.c under {model:?}");
        let run = support::run_harness(&cbmc, "sb.c", model, &[])?;
        run.expect(
            "sb: r1 == 0 && r2 == 0",
            expected(model.is_weak()),
            &context,
        )?;
        run.expect("sc: r1 == 0 && r2 == 1", Status::Failure, &context)?;
        run.expect("end reachable", Status::Failure, &context)?;
    }
    Ok(())
}

#[test]
fn full_fences_forbid_store_buffering() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("sb.c with fences under {model:?}");
        let run = support::run_harness(&cbmc, "sb.c", model, &["-DWITH_FENCE"])?;
        run.expect("sb: r1 == 0 && r2 == 0", Status::Success, &context)?;
        run.expect("end reachable", Status::Failure, &context)?;
    }
    Ok(())
}

#[test]
fn message_passing_breaks_under_pso_only() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("mp.c under {model:?}");
        let run = support::run_harness(&cbmc, "mp.c", model, &[])?;
        run.expect("mp: r1 == 1 && r2 == 0", expected(model.is_pso()), &context)?;
        run.expect("sc: r1 == 1 && r2 == 1", Status::Failure, &context)?;
        run.expect(
            "sc: r1 == 0 && r2 == 0",
            expected(model.is_weak()),
            &context,
        )?;
    }
    Ok(())
}

#[test]
fn store_store_fence_forbids_message_passing() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("mp.c with a store-store fence under {model:?}");
        let run = support::run_harness(&cbmc, "mp.c", model, &["-DWITH_STORE_FENCE"])?;
        run.expect("mp: r1 == 1 && r2 == 0", Status::Success, &context)?;
        // the fence does not drain: the writes may still be buffered
        run.expect(
            "sc: r1 == 0 && r2 == 0",
            expected(model.is_weak()),
            &context,
        )?;
        run.expect("end reachable", Status::Failure, &context)?;
    }
    Ok(())
}

#[test]
fn read_modify_writes_are_atomic_and_drain() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("rmw.c under {model:?}");
        let run = support::run_harness(&cbmc, "rmw.c", model, &[])?;
        for (description, status) in &run.properties {
            let wanted = if description.starts_with("always:") {
                Status::Success
            } else if description.starts_with("weak:") {
                expected(model.is_weak())
            } else if description == "end reachable" {
                Status::Failure
            } else {
                return Err(format!("{context}: unexpected property \"{description}\""));
            };
            if *status != wanted {
                return Err(format!(
                    "{context}: \"{description}\" is {status:?}, expected {wanted:?}"
                ));
            }
        }
        if run.properties.len() != 10 {
            return Err(format!(
                "{context}: expected 10 properties, got {:?}",
                run.properties
            ));
        }
    }
    Ok(())
}

#[test]
fn mutexes_exclude_and_publish() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("lock.c under {model:?}");
        let run = support::run_harness(&cbmc, "lock.c", model, &[])?;
        run.expect(
            "always: unlock publishes the critical section",
            Status::Success,
            &context,
        )?;
        run.expect("end reachable", Status::Failure, &context)?;
        let twice = support::run_harness(&cbmc, "lock.c", model, &["-DLOCK_TWICE"])?;
        twice.expect(
            "never: a taken mutex cannot be locked",
            Status::Success,
            &context,
        )?;
    }
    Ok(())
}

#[test]
fn heap_blocks_and_bounds_cut_executions_off() -> Result<(), String> {
    let Some(cbmc) = support::cbmc()? else {
        return Ok(());
    };
    for model in Model::ALL {
        let context = format!("heap.c under {model:?}");
        let run = support::run_harness(&cbmc, "heap.c", model, &[])?;
        for description in [
            "always: the first block starts at the heap base",
            "always: a zeroed block reads 0",
            "always: a thread reads its own heap store",
            "always: the second block follows the first",
        ] {
            run.expect(description, Status::Success, &context)?;
        }
        run.expect(
            "reachable: a block that is not zeroed may hold any value",
            Status::Failure,
            &context,
        )?;
        run.expect(
            "reachable: a block that is not zeroed may hold 0",
            Status::Failure,
            &context,
        )?;
        run.expect("end reachable", Status::Failure, &context)?;
        for cut in 1..=5 {
            let define = format!("-DCUT={cut}");
            let cut_run = support::run_harness(&cbmc, "heap.c", model, &[define.as_str()])?;
            cut_run.expect(
                "end reachable",
                Status::Success,
                &format!("{context} {define}"),
            )?;
        }
        let big = support::run_harness(&cbmc, "heap_big.c", model, &[])?;
        big.expect(
            "end reachable",
            Status::Success,
            &format!("heap_big.c under {model:?}"),
        )?;
    }
    Ok(())
}

#[test]
fn harnesses_compile_with_gcc() -> Result<(), String> {
    let variants: [&[&str]; 4] = [
        &[],
        &["-DWITH_FENCE", "-DWITH_STORE_FENCE"],
        &["-DLOCK_TWICE"],
        &["-DCUT=5"],
    ];
    for harness in ["sb.c", "mp.c", "rmw.c", "lock.c", "heap.c", "heap_big.c"] {
        for model in Model::ALL {
            for variant in variants {
                let mut args = vec![model.define().to_string()];
                args.extend(variant.iter().map(|define| define.to_string()));
                support::gcc_syntax_check(&support::harness_dir().join(harness), &args)?;
            }
        }
    }
    Ok(())
}
