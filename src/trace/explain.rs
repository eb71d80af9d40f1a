//! The one entry from `verify` into the trace: a violation's records are
//! decoded into the execution of the original program, checked natively
//! (VerifyTSO/VerifyPSO, the witness replayed), diagnosed, and written
//! into the report with the violated property as the translation's
//! property table knows it. The verdict, and with it the exit code, is
//! decided here for every violation; a diagnosis whose audit finds a false
//! sentence is a defect of lazysma (exit 4), like a counterexample that
//! fails the native check.

use super::diagnosis::{self, audit};
use super::execution::{self, BuildError, Decoded};
use super::records::{self, Assignment, Record, RecordKind};
use super::report_builder::Renderer;
use crate::consistency::{self, ExecutionError};
use crate::ir::OriginId;
use crate::options::MemoryModel;
use crate::options::SmaImplementation;
use crate::passes::TranslationMap;
use crate::report::document::{Verdict, VerifyReport};
use crate::report::kinds::WitnessSource;
use crate::report::property::PropertyReport;

/// What an engine found violated, with the evidence of the execution.
pub struct Counterexample<'a> {
    /// The property's id as the engine names it (CBMC's
    /// `function.assertion.n`).
    pub id: &'a str,
    /// The property's description as the engine shows it.
    pub description: &'a str,
    /// The execution, as recorded by the SMA.
    pub evidence: Evidence<'a>,
    /// How the records encode when stores reach memory.
    pub sma: SmaImplementation,
    /// The memory model the execution is checked under.
    pub model: MemoryModel,
    /// Whether to check it natively (no `--no-check`).
    pub native_check: bool,
}

/// The records of a violating execution.
pub enum Evidence<'a> {
    /// The assignments of a CBMC trace, from which the SMA's records are
    /// decoded.
    Assignments(Vec<Assignment<'a>>),
    /// Records the native engine made.
    Records(Vec<Record>),
}

/// Decodes, checks and explains `counterexample` into `report`.
pub fn explain(report: &mut VerifyReport, map: &TranslationMap, counterexample: Counterexample) {
    let Counterexample {
        id,
        description,
        evidence,
        sma,
        model,
        native_check,
    } = counterexample;
    report.property = Some(PropertyReport::of(map, id, description));
    let records = match evidence {
        Evidence::Assignments(assignments) => match records::decode(assignments) {
            Ok(records) => records,
            Err(error) => return undecodable(report, native_check, &error.to_string()),
        },
        Evidence::Records(records) => records,
    };
    match execution::build_typed(&records, &map.locations, &map.value_types, sma) {
        Ok(decoded) => check_and_explain(report, &decoded, map, model, native_check),
        Err(BuildError::Malformed(ExecutionError::UnlockNotHeld { .. })) => {
            match unheld_unlock(&records) {
                Some((origin, thread)) => unlock_not_held(report, map, origin, thread),
                None => undecodable(report, native_check, "an unlock of a mutex not held"),
            }
        }
        Err(error) => undecodable(report, native_check, &error.to_string()),
    }
}

/// The report of records that form no execution: a defect of the
/// translation or of the engine.
fn undecodable(report: &mut VerifyReport, native_check: bool, reason: &str) {
    report.check.reason = Some(reason.to_string());
    report.check.realisable = Some(false);
    report.check.performed = native_check;
    report.conclude_with(
        Verdict::CheckFailed,
        format!("the counterexample cannot be decoded: {reason}"),
    );
}

/// The id of the property "a thread unlocks a mutex it does not hold",
/// which the native check finds (CBMC has no such property).
const UNLOCK_NOT_HELD_ID: &str = "unlock-not-held";

/// The report of an unlock of a mutex its thread does not hold: the
/// program's bug, which no execution can show (the property the engine
/// reported may well need it).
fn unlock_not_held(
    report: &mut VerifyReport,
    map: &TranslationMap,
    origin: OriginId,
    thread: usize,
) {
    let description = match map.origins.get(origin) {
        Some(o) => format!(
            "{}:{}: {}: {}",
            o.file,
            o.line,
            crate::ir::UNLOCK_NOT_HELD,
            o.text
        ),
        None => crate::ir::UNLOCK_NOT_HELD.to_string(),
    };
    report.property = Some(PropertyReport::at(
        map,
        UNLOCK_NOT_HELD_ID,
        &description,
        crate::passes::properties::PropertyKind::UnlockNotHeld,
        Some(origin),
        Some(thread),
    ));
    report.conclude_with(
        Verdict::Violation,
        "a thread unlocks a mutex that it does not hold, which POSIX leaves undefined for a normal mutex: no execution of the memory model goes on from there, so the native check has no witness"
            .into(),
    );
}

/// Reports the first unlock in `records` of a mutex that its thread does
/// not hold as the violation, as a counterexample of CBMC's is reported
/// ([`explain`]); false when `records` have none.
pub fn report_unheld_unlock(
    report: &mut VerifyReport,
    map: &TranslationMap,
    records: &[Record],
) -> bool {
    match unheld_unlock(records) {
        Some((origin, thread)) => {
            unlock_not_held(report, map, origin, thread);
            true
        }
        None => false,
    }
}

/// The statement and thread of the first unlock in `records` of a mutex
/// that its thread does not hold.
fn unheld_unlock(records: &[Record]) -> Option<(OriginId, usize)> {
    let mut held = std::collections::HashSet::new();
    let record = records.iter().find(|record| match record.kind {
        RecordKind::Lock => !held.insert((record.thread, record.loc)),
        RecordKind::Unlock => !held.remove(&(record.thread, record.loc)),
        _ => false,
    })?;
    Some((record.stmt, record.thread))
}

/// Checks an execution decoded from a violation's records natively under
/// `model` and explains it: the witness table, the diagnosis and the fence
/// advice.
pub fn check_and_explain(
    report: &mut VerifyReport,
    decoded: &Decoded,
    map: &TranslationMap,
    model: MemoryModel,
    native_check: bool,
) {
    let renderer = Renderer {
        decoded,
        map,
        atomic_writes: model == MemoryModel::Sc,
    };
    let bound_reached = report
        .property
        .as_ref()
        .is_some_and(PropertyReport::is_unwinding_assertion);
    let failing = report
        .property
        .as_ref()
        .and_then(PropertyReport::thread_slot);
    // a deadlock is the state after the last step
    let deadlock = report
        .property
        .as_ref()
        .is_some_and(|property| property.kind.is_endless_wait());
    let witness_report = |witness, source| match deadlock {
        true => renderer.witness_failing_at_end(witness, source),
        false => renderer.witness(witness, source, failing),
    };
    // CBMC's convention: a failed unwinding assertion fails the run
    let violation = match bound_reached {
        true => Verdict::UnwindingBound,
        false => Verdict::Violation,
    };
    if !native_check {
        let unchecked = match bound_reached {
            true => Verdict::UnwindingBound,
            false => Verdict::UncheckedViolation,
        };
        report.conclude(unchecked);
        report.witness = Some(witness_report(&decoded.sma_order, WitnessSource::SmaTrace));
        return;
    }
    report.check.performed = true;
    let checked = consistency::verify(&decoded.execution, model)
        .map_err(|reason| reason.to_string())
        .and_then(
            |witness| match consistency::replay(&decoded.execution, &witness, model) {
                Ok(()) => Ok(witness),
                Err(error) => Err(format!("the checker's witness does not replay: {error}")),
            },
        );
    match checked {
        Ok(witness) => {
            report.check.realisable = Some(true);
            report.conclude(violation);
            report.witness = Some(witness_report(&witness, WitnessSource::NativeCheck));
            if !bound_reached {
                let found = diagnosis::diagnose(decoded, &witness, model);
                report.diagnosis = Some(renderer.diagnosis(&found, model));
                let false_sentences =
                    audit::audit(&decoded.execution, &witness, model, &found.reorderings);
                refuse_false_sentences(report, &false_sentences);
            }
        }
        Err(reason) => {
            report.check.realisable = Some(false);
            report.check.reason = Some(reason.clone());
            report.witness = Some(witness_report(&decoded.sma_order, WitnessSource::SmaTrace));
            report.conclude_with(
                Verdict::CheckFailed,
                format!("the counterexample failed the native check: {reason}"),
            );
        }
    }
}

/// A diagnosis with a false sentence (`audit`): a defect of lazysma, which
/// ends the run with exit 4, the report kept as evidence.
fn refuse_false_sentences(report: &mut VerifyReport, false_sentences: &[audit::FalseSentence]) {
    let Some(first) = false_sentences.first() else {
        return;
    };
    report.check.false_sentences = false_sentences.iter().map(ToString::to_string).collect();
    report.conclude_with(
        Verdict::CheckFailed,
        format!(
            "the diagnosis names a reordering that its witness does not show or {} does not allow: {first}",
            report.check.model
        ),
    );
}
