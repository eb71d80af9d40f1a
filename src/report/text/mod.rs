//! Renders a [`VerifyReport`] as text for a terminal: the violated
//! assertion with its source line, the witness table, the diagnosis with
//! fence advice, bounds and CBMC's time. ANSI colours only when asked.

use super::document::{
    AllViolations, AnsweringEngine, CycleStep, DeadlockCheck, FenceAdvice, FreeReport, Goal,
    NativeSearch, PropertyKind, PropertyReport, StepKind, StepReport, Verdict, VerifyReport,
    WarningReport, WitnessSource,
};
use crate::options::SmaImplementation;
use std::fmt::Write as _;

/// ANSI styles, or nothing when colours are off.
struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
    fn red(&self, text: &str) -> String {
        self.paint("1;31", text)
    }
    fn green(&self, text: &str) -> String {
        self.paint("1;32", text)
    }
    fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }
    fn cyan(&self, text: &str) -> String {
        self.paint("36", text)
    }
    fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
}

/// The text report: with the further violations of `--all-violations`,
/// each violation in turn under a header `Violation 2 of 3`, then one
/// footer.
pub fn render(report: &VerifyReport, color: bool) -> String {
    let style = Style { color };
    let mut out = String::new();
    let violations = report.each_violation();
    if violations.len() > 1 {
        for (at, violation) in violations.iter().enumerate() {
            let header = format!("Violation {} of {}", at + 1, violations.len());
            let gap = if at == 0 { "" } else { "\n" };
            let _ = writeln!(out, "{gap}{}", style.bold(&format!("=== {header} ===")));
            body(&mut out, violation, &style);
        }
    } else if !body(&mut out, report, &style) {
        return out;
    }
    footer(&mut out, report, &style);
    out
}

/// The headline, witness and diagnosis of the report's verdict; `false`
/// for a run without a verdict, whose headline is all there is.
fn body(out: &mut String, report: &VerifyReport, style: &Style) -> bool {
    let model = report.model.to_string();
    let unreached = report
        .reach
        .as_ref()
        .filter(|reach| reach.end_of_main == Some(false));
    match report.verdict {
        Verdict::Safe if report.goal == Goal::Robustness => {
            let _ = writeln!(
                out,
                "{} under {model} within the loop bounds: every execution's reads-from is one a sequentially consistent execution has",
                style.green("Robust")
            );
        }
        Verdict::Violation if report.goal == Goal::Robustness => {
            let _ = writeln!(
                out,
                "{} under {model}: in this execution the reads observe what no sequentially consistent execution can",
                style.red("Not robust")
            );
        }
        Verdict::Safe if let Some(split) = report.split => {
            let _ = writeln!(
                out,
                "{} under {model} in part {} of {} of the executions (--split {split}): the program is safe only when every part is; `lazysma merge` combines the parts' JSON reports{}",
                style.yellow("No violation"),
                split.part,
                split.parts,
                cut_off_clause(report)
            );
        }
        Verdict::Safe if let Some(reach) = unreached => {
            // vacuous past the cut: say so first
            let _ = writeln!(
                out,
                "{} under {model} in the code the bounds reached, but no execution reaches the end of main within the bounds: {}{}",
                style.yellow("No violation"),
                reach
                    .reason
                    .as_deref()
                    .unwrap_or("the bounds cut every execution off"),
                cut_off_clause(report)
            );
        }
        Verdict::Safe if report.cut_offs().next().is_some() => {
            // executions were cut off at the places the warnings name
            let _ = writeln!(
                out,
                "{} under {model} in the executions the bounds reached: {}{}{}",
                style.yellow("No violation"),
                cut_off_summaries(report),
                unchecked_clause(report),
                cut_off_clause(report)
            );
        }
        Verdict::Safe if !report.warnings.is_empty() => {
            // not a clean bill of health: some code was never reached
            let _ = writeln!(
                out,
                "{} under {model} in the code the bounds reached; the code after {} was not checked (see the {}){}",
                style.yellow("No violation"),
                unreached_places(report),
                if report.warnings.len() == 1 {
                    "warning"
                } else {
                    "warnings"
                },
                cut_off_clause(report)
            );
        }
        Verdict::Safe => {
            let _ = writeln!(
                out,
                "{} under {model} within the bounds{}",
                style.green("No violation"),
                cut_off_clause(report)
            );
        }
        Verdict::Violation | Verdict::UncheckedViolation => headline(out, report, style, &model),
        Verdict::UnwindingBound => unwinding_headline(out, report, style, &model),
        Verdict::CheckFailed if !report.check.false_sentences.is_empty() => {
            headline(out, report, style, &model);
            let _ = writeln!(
                out,
                "\n{} the violation is confirmed by the native {} check, but its diagnosis below names a reordering \
                 that the witness does not show or the model does not allow:",
                style.red("INTERNAL ERROR:"),
                report.check.model
            );
            for sentence in &report.check.false_sentences {
                let _ = writeln!(out, "  {sentence}");
            }
            let _ = writeln!(
                out,
                "This is a defect of lazysma's diagnosis, not of your program's verdict.\n\
                 Please report it with the program and the options used."
            );
        }
        Verdict::CheckFailed => {
            headline(out, report, style, &model);
            let _ = writeln!(
                out,
                "\n{} the counterexample CBMC found is NOT realisable under {} according to the native check ({}).\n\
                 This is a defect of lazysma's translation, not a bug in your program.\n\
                 Please report it with the program and the options used.",
                style.red("INTERNAL ERROR:"),
                report.check.model,
                report.check.reason.as_deref().unwrap_or("no reason given")
            );
        }
        Verdict::BadInput | Verdict::BackendError | Verdict::Timeout => {
            let _ = writeln!(
                out,
                "{} {}",
                style.red("error:"),
                report.message.as_deref().unwrap_or("verification failed")
            );
            return false;
        }
    }
    if let Some(witness) = &report.witness {
        let title = match witness.source {
            WitnessSource::NativeCheck => format!(
                "Witness: an interleaving the native {} check confirms",
                report.check.model
            ),
            _ => "Counterexample in the order CBMC's trace recorded it (not checked)".to_string(),
        };
        let _ = writeln!(out, "\n{}", style.bold(&title));
        let failure = witness
            .fails_after_step
            .map(|after| (after, failure_cells(report, &witness.steps)));
        table(out, &witness.steps, failure, style);
        frees(out, &witness.frees);
        inputs(out, &witness.inputs);
    }
    if let Some(diagnosis) = &report.diagnosis {
        let _ = writeln!(out, "\n{} {}", style.bold("Diagnosis:"), diagnosis.summary);
        cycle(out, &diagnosis.cycle, &report.model.to_string());
        for reordering in &diagnosis.reorderings {
            let _ = writeln!(out, "  - {}", reordering.explanation);
        }
        for fence in &diagnosis.fences {
            let _ = writeln!(out, "  {} {}", style.cyan("fix:"), fence_advice(fence));
        }
    }
    true
}

/// The happens-before cycle, one access a line with the relation that
/// leads to the next.
fn cycle(out: &mut String, steps: &[CycleStep], model: &str) {
    if steps.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  happens-before cycle (no sequentially consistent order has it):"
    );
    let width = steps
        .iter()
        .map(|step| step.thread.len())
        .max()
        .unwrap_or(0);
    let access = steps
        .iter()
        .map(|step| step.access.len())
        .max()
        .unwrap_or(0);
    for (at, step) in steps.iter().enumerate() {
        let line = step
            .point
            .line
            .map_or_else(|| "?".to_string(), |line| line.to_string());
        let relation = step.then.replace('-', " ");
        let relaxed = if step.relaxed {
            format!(", which {model} relaxes")
        } else {
            String::new()
        };
        let next = if at + 1 == steps.len() {
            ", back to 1".to_string()
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "    {}. {:width$}  line {line:>4}  {:access$}  -> {relation}{relaxed}{next}",
            at + 1,
            step.thread,
            step.access,
        );
    }
}

/// Where to insert a fence, in words.
fn fence_advice(fence: &FenceAdvice) -> String {
    let before = match &fence.before_statement {
        Some(before) => format!(
            ", before `{}` (line {}, column {})",
            before.text, before.line, before.column
        ),
        None => format!(", before line {}", fence.before_line),
    };
    let (insert, file, thread) = (fence.insert, &fence.file, &fence.thread);
    let after = &fence.after_statement;
    let statement = &after.text;
    match (fence.placement, fence.after_column) {
        ("split-statement", _) => format!(
            "`{statement}` (line {} of {file}, in {thread}) makes both accesses: split it and insert `{insert}` between them",
            after.line
        ),
        (placement, Some(end)) => {
            let span = if after.line == fence.after_line {
                format!("line {}, columns {}-{end}", after.line, after.column)
            } else {
                format!("lines {}-{}", after.line, fence.after_line)
            };
            let braces = if placement == "in-braces" {
                format!(
                    "; it is the body of an `if`, `else` or loop without braces: write `{{ {statement} {insert} }}`"
                )
            } else {
                String::new()
            };
            format!(
                "insert `{insert}` right after `{statement}` ({span} of {file}, in {thread}){before}{braces}"
            )
        }
        _ => format!(
            "insert `{insert}` after the store in `{statement}` (line {} of {file}, in {thread}; lazysma cannot place it \
             more precisely){before}",
            after.line
        ),
    }
}

fn headline(out: &mut String, report: &VerifyReport, style: &Style, model: &str) {
    let what = if report.verdict == Verdict::UncheckedViolation {
        "Violation (not checked natively)"
    } else {
        "Violation"
    };
    let Some(property) = &report.property else {
        let _ = writeln!(out, "{} under {model}", style.red(what));
        return;
    };
    // what fails, where it is not an assertion
    let failure = match property.kind {
        PropertyKind::Assertion | PropertyKind::UnwindingAssertion => String::new(),
        kind => format!(": {}", kind.failure()),
    };
    let _ = writeln!(
        out,
        "{} under {model}{failure} (property {})",
        style.red(what),
        property.id
    );
    if !source_point(out, property, style) {
        let _ = writeln!(out, "  {}", property.description);
    }
    if property.kind.is_endless_wait() {
        deadlock_waits(out, &property.description);
    }
    if report.found_under_sc {
        let _ = writeln!(
            out,
            "Found by the run under SC beside the {model} run: this bug needs no weak memory, and {model} allows \
             every execution SC allows."
        );
    }
}

/// Where each thread of a deadlock waits, one line each (the native
/// engine's description: `no thread can move: W; W...`).
fn deadlock_waits(out: &mut String, description: &str) {
    let waits = description
        .split_once(": ")
        .map_or(description, |(_, waits)| waits);
    for wait in waits.split("; ") {
        let _ = writeln!(out, "  {wait}");
    }
}

/// `--> file:line` and the source line of a property, if it maps back to
/// the source; whether it does.
fn source_point(out: &mut String, property: &PropertyReport, style: &Style) -> bool {
    let (Some(file), Some(line)) = (&property.file, property.line) else {
        return false;
    };
    let _ = writeln!(out, "  {} {file}:{line}", style.cyan("-->"));
    if let Some(source) = &property.source {
        let _ = writeln!(out, "  {} {}", style.cyan(&format!("{line:>4} |")), source);
    }
    true
}

fn unwinding_headline(out: &mut String, report: &VerifyReport, style: &Style, model: &str) {
    let unwind = match report
        .property
        .as_ref()
        .and_then(|p| Some((p.file.as_deref()?, p.line?)))
    {
        Some((file, line)) => report.bounds.unwind_at(file, line, file == report.file),
        None => report.bounds.unwind,
    };
    let _ = writeln!(
        out,
        "{} under {model}: a loop can run more than --unwind {unwind} times",
        style.red("Unwinding bound reached")
    );
    if let Some(property) = &report.property {
        source_point(out, property, style);
    }
    let _ = writeln!(
        out,
        "This is a bound, not a bug: executions with more iterations were not checked. \
         Raise --unwind to check them."
    );
}

fn footer(out: &mut String, report: &VerifyReport, style: &Style) {
    let _ = writeln!(
        out,
        "\n{}",
        style.dim(&format!(
            "{} ({}), bounds: {}",
            report.file,
            checked_by(report),
            report.bounds.describe()
        ))
    );
    if let Some(native) = &report.native {
        let _ = writeln!(out, "{}", style.dim(&native_line(native)));
    }
    if let Some(cbmc) = &report.cbmc {
        let check = match (report.check.performed, report.check.realisable) {
            (true, Some(true)) => format!("; native {} check: confirmed", report.check.model),
            (true, Some(false)) => format!("; native {} check: FAILED", report.check.model),
            _ => String::new(),
        };
        let solver = match (&cbmc.sat_solver, cbmc.decided_by.as_deref()) {
            (None, _) => String::new(),
            (Some(name), Some("cbmc")) => format!(" (its own solver decided; {name} beside it)"),
            (Some(name), _) => format!(" with {name}"),
        };
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!(
                "CBMC {}{solver}: {:.1} s{check}",
                cbmc.version, cbmc.seconds
            ))
        );
    }
    let _ = writeln!(
        out,
        "{}",
        style.dim(&format!(
            "lazysma {}: {}",
            report.lazysma.version,
            report.lazysma.command_line()
        ))
    );
    if let Some(kept) = &report.kept {
        let sc_program = match &kept.sc_program {
            Some(sc_program) => format!("; the run under SC's: {sc_program}"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "{}",
            style.dim(&format!("kept: {}{sc_program}", kept.program))
        );
    }
    if let Some(all) = &report.all_violations {
        all_violations_note(out, all, style);
    }
    if report.verdict == Verdict::Safe {
        let _ = writeln!(out, "{}", style.dim(&safe_note(report)));
        if report.deadlock == DeadlockCheck::NotChecked && report.goal == Goal::Assertions {
            let _ = writeln!(out, "{}", style.dim(DEADLOCK_NOT_CHECKED));
        }
        for spin_loop in &report.spin_loops {
            let _ = writeln!(out, "{}", style.dim(&spin_loop_note(spin_loop)));
        }
        if !report.warnings.is_empty() {
            let _ = writeln!(
                out,
                "{} {}",
                style.yellow("warning:"),
                unreached_note(report)
            );
        }
    }
}

/// How many properties `--all-violations` found failing, and whether the
/// list may be incomplete.
fn all_violations_note(out: &mut String, all: &AllViolations, style: &Style) {
    let properties = match all.count {
        1 => "1 property fails".to_string(),
        count => format!("{count} properties fail"),
    };
    match &all.stopped {
        None if all.count > 0 => {
            let _ = writeln!(
                out,
                "{}",
                style.dim(&format!(
                    "all violations: {properties}; the search covered every execution within the bounds"
                ))
            );
        }
        None => {}
        Some(why) => {
            let _ = writeln!(
                out,
                "{} all violations: {properties} so far; the search stopped before it covered every execution ({why}): \
                 the list may be incomplete",
                style.yellow("warning:")
            );
        }
    }
}

/// `spin loop at ticket.c:7 treated as a wait`.
fn spin_loop_note(point: &super::document::SourcePoint) -> String {
    format!(
        "spin loop at {}:{} treated as a wait (no --unwind cuts it; --unroll-spin-loops unrolls it)",
        short_file(point.file.as_deref().unwrap_or_default()),
        point.line.unwrap_or(0)
    )
}

/// What a safe verdict of the CBMC path does not say.
const DEADLOCK_NOT_CHECKED: &str = "(deadlocks were not checked, nor waits that never end: only the native engine decides \
     them, and it did not run or gave no answer; --engine smc runs it alone and tells why)";

/// The SMA whose run gave the verdict.
fn checked_by(report: &VerifyReport) -> String {
    if report.engine == AnsweringEngine::Smc {
        format!("native engine, {}", report.model)
    } else if report.found_under_sc {
        format!("sc, beside {}", report.sma.name())
    } else {
        report.sma.name().to_string()
    }
}

/// What a safe verdict does not cover: the code that the translator's
/// warnings found unreachable within the bounds.
fn unreached_note(report: &VerifyReport) -> String {
    if report.warnings.iter().all(|w| w.cut_off.is_some()) {
        return format!(
            "executions were cut off at {} (see the warnings); what they do after was not checked",
            unreached_places(report)
        );
    }
    let them = if report.warnings.len() == 1 {
        "it"
    } else {
        "them"
    };
    format!(
        "no execution gets past {} within the bounds (see the warnings), so the code after {them} was not checked",
        unreached_places(report)
    )
}

/// The headline's clause for executions `--bitwidth` cut off, if any.
fn cut_off_clause(report: &VerifyReport) -> String {
    report
        .values_cut_off()
        .map(|cut| format!("; {cut}"))
        .unwrap_or_default()
}

/// `file:line` of each place the translator's warnings say no execution
/// gets past (all warnings when none is of that kind).
fn unreached_places(report: &VerifyReport) -> String {
    let translator = report.warnings.iter().filter(|w| w.cut_off.is_none());
    let warnings: Vec<&WarningReport> = if translator.clone().next().is_some() {
        translator.collect()
    } else {
        report.warnings.iter().collect()
    };
    let places: Vec<String> = warnings
        .iter()
        .map(|w| format!("{}:{}", short_file(&w.file), w.line))
        .collect();
    places.join(", ")
}

/// The places where the run cut executions off, each with the option that
/// lifts its bound: `the allocation at heapcut.c:10 was cut off above 8
/// scalars (--heap-block)`.
fn cut_off_summaries(report: &VerifyReport) -> String {
    let summaries: Vec<String> = report
        .cut_offs()
        .map(|cut| format!("{} ({})", cut.summary, cut.option))
        .collect();
    summaries.join("; ")
}

/// The headline's clause for the code the translator's warnings found
/// unreachable beside the run's cut-offs, if any.
fn unchecked_clause(report: &VerifyReport) -> String {
    if report.warnings.iter().all(|w| w.cut_off.is_some()) {
        return String::new();
    }
    format!(
        "; the code after {} was not checked (see the warnings)",
        unreached_places(report)
    )
}

/// What a safe verdict does not rule out: the executions that the bounds
/// which apply to this run cut off (not the buffer space, the memory clock
/// or the heap when they are enough for every execution of the program).
fn safe_note(report: &VerifyReport) -> String {
    if report.engine == AnsweringEngine::Smc {
        return native_safe_note(report);
    }
    let (qsize_enough, clock_enough) = report
        .sufficient_bounds
        .map_or((false, false), |sufficient| {
            sufficient.covered_by(&report.bounds)
        });
    let heap_enough = report
        .sufficient_nmalloc
        .is_some_and(|nmalloc| report.bounds.nmalloc >= nmalloc);
    let mut needs = vec!["more rounds"];
    if !report.unwinding_assertions && report.has_loops {
        needs.push("loop iterations");
    }
    if report.sma != SmaImplementation::Sc && !qsize_enough {
        needs.push("buffer space");
    }
    if report.sma.is_timestamped() && !clock_enough {
        needs.push("a later memory clock");
    }
    if report.bounds.heap_block.is_some() && !heap_enough {
        needs.push("more heap");
    }
    let wider = format!("values wider than {} bits", report.bounds.bitwidth);
    if report.bounds.narrows_values() || report.cuts_wide_values {
        needs.push(&wider);
    }
    let listed = match needs.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => needs.join(""),
    };
    let loops = if report.unwinding_assertions {
        "every loop exits within --unwind; "
    } else {
        ""
    };
    let sufficient = sufficient_note(report, [qsize_enough, clock_enough, heap_enough])
        .map(|note| format!("; {note}"))
        .unwrap_or_default();
    format!("({loops}bugs that need {listed} are not ruled out{sufficient})")
}

/// What a safe verdict of the native engine covers: every interleaving and
/// every store-buffer length, within the loop bounds.
fn native_safe_note(report: &VerifyReport) -> String {
    let loops = if !report.has_loops && !report.spin_loops.is_empty() {
        "the program's only loops are spin loops, each a wait"
    } else if !report.has_loops {
        "the program has no loop"
    } else if report.unwinding_assertions {
        "every loop exits within --unwind"
    } else {
        "bugs that need more loop iterations are not ruled out"
    };
    let wider = if report.bounds.narrows_values() || report.cuts_wide_values {
        format!(
            "; bugs that need values wider than {} bits are not ruled out",
            report.bounds.bitwidth
        )
    } else {
        String::new()
    };
    format!(
        "(the native engine explored every interleaving and every store-buffer length, without round or buffer bounds; {loops}{wider})"
    )
}

/// The native engine's run in one line: its outcome and what it counted.
fn native_line(native: &super::document::NativeReport) -> String {
    let mut line = format!("native engine: {}", native.outcome);
    if let Some(reason) = &native.reason {
        line.push_str(&format!(" ({reason})"));
    }
    if let Some(statistics) = &native.statistics {
        line.push_str(&format!(", {} search", statistics.search));
        if let Some(why) = statistics.fallback {
            line.push_str(&format!(" (RF-SMC does not handle {why} yet)"));
        }
        if statistics.search == NativeSearch::RfSmc {
            line.push_str(&format!(
                ", {} reads-from classes",
                statistics.reads_from_classes
            ));
        } else {
            line.push_str(&format!(
                ", {} states, {} moves",
                statistics.states, statistics.moves
            ));
        }
        line.push_str(&format!(
            ", {} complete and {} blocked executions ({} deadlocked, {} cut off or stopped)",
            statistics.complete_executions,
            statistics.blocked_executions,
            statistics.deadlocked_executions,
            statistics.blocked_executions - statistics.deadlocked_executions,
        ));
        if statistics.awaiting_executions > 0 {
            line.push_str(&format!(
                ", {} ended by a spin loop that read too early",
                statistics.awaiting_executions
            ));
        }
        line.push_str(&format!(", {} events", statistics.events));
    }
    line.push_str(&format!(": {:.3} s", native.seconds));
    line
}

/// The buffer space, memory clock and heap blocks that no execution of the
/// program needs more of, and how to get those the run had less of
/// (`enough`: whether it had enough buffer space, clock and heap).
fn sufficient_note(report: &VerifyReport, enough: [bool; 3]) -> Option<String> {
    let [qsize_enough, clock_enough, heap_enough] = enough;
    let mut values = Vec::new();
    let mut auto = Vec::new();
    if let Some(sufficient) = report.sufficient_bounds {
        values.push(sufficient.describe());
        if !qsize_enough {
            auto.push("--qsize auto");
        }
        if !clock_enough {
            auto.push("--maxclock auto");
        }
    }
    if report.bounds.heap_block.is_some()
        && let Some(nmalloc) = report.sufficient_nmalloc
    {
        values.push(format!("nmalloc {nmalloc}"));
        if !heap_enough {
            auto.push("--nmalloc auto");
        }
    }
    if values.is_empty() {
        return None;
    }
    let sets = match auto.len() {
        0 => String::new(),
        1 => format!("; {} sets it", auto[0]),
        _ => format!("; {} set them", auto.join(" ")),
    };
    Some(format!(
        "no execution of this program needs more than {}{sets}",
        values.join(", ")
    ))
}

/// The cells of the row that marks where the property fails: the failing
/// thread, the property's place and statement, what fails.
/// The execution's `free`s, below the witness: a `free` is no memory
/// access, so it is no step of the interleaving.
fn frees(out: &mut String, frees: &[FreeReport]) {
    for free in frees {
        let at = match (&free.file, free.line, &free.statement) {
            (Some(file), Some(line), Some(statement)) => format!(" ({file}:{line}: {statement})"),
            (Some(file), Some(line), None) => format!(" ({file}:{line})"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {} freed the block at {}{at}",
            free.thread.name, free.location
        );
    }
}

/// The symbolic inputs of a native witness, below it: the values the
/// solver's model gives them.
fn inputs(out: &mut String, inputs: &[super::document::InputReport]) {
    if inputs.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  nondeterministic values of this execution (from the SMT solver's model, checked on every branch):"
    );
    for (index, input) in inputs.iter().enumerate() {
        let _ = writeln!(
            out,
            "    #{} read first by thread slot {} ({}): ({}) {}",
            index + 1,
            input.thread,
            input.function,
            input.ty,
            input.value
        );
    }
}

fn failure_cells(report: &VerifyReport, steps: &[StepReport]) -> [String; 5] {
    let property = report.property.as_ref();
    let slot = property.and_then(|p| p.thread_slot());
    let thread = steps
        .iter()
        .find(|row| Some(row.thread.slot) == slot)
        .map(|row| row.thread.name.clone())
        .unwrap_or_default();
    let at = match property.and_then(|p| Some((p.file.as_deref()?, p.line?))) {
        Some((file, line)) => format!("{}:{line}", short_file(file)),
        None => String::new(),
    };
    let statement = property
        .and_then(|p| p.statement.clone())
        .unwrap_or_default();
    let what = property.map_or("the property fails", |p| p.kind.failure());
    [
        String::new(),
        thread,
        at,
        clip(&statement, STATEMENT_WIDTH),
        format!("FAILS: {what}"),
    ]
}

/// The widest statement column of the witness table.
const STATEMENT_WIDTH: usize = 36;

/// The witness table, one row per step, columns padded to their widths;
/// with `failure` (the step after which the property fails, and the cells
/// of the row that says so), that row after the step, and the steps after
/// it set apart.
fn table(
    out: &mut String,
    steps: &[StepReport],
    failure: Option<(usize, [String; 5])>,
    style: &Style,
) {
    let header = ["step", "thread", "at", "statement", "memory effect"];
    let cells: Vec<[String; 5]> = steps
        .iter()
        .map(|row| {
            let at = match (&row.file, row.line) {
                (Some(file), Some(line)) => format!("{}:{line}", short_file(file)),
                _ => String::new(),
            };
            [
                row.step.to_string(),
                row.thread.name.clone(),
                at,
                clip(row.statement.as_deref().unwrap_or(""), STATEMENT_WIDTH),
                row.effect.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in cells.iter().chain(failure.as_ref().map(|(_, cells)| cells)) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        format!(
            "  {:>w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        )
    };
    let failure_row = |out: &mut String, cells: &[String; 5]| {
        let text = line([&cells[0], &cells[1], &cells[2], &cells[3], ""]);
        let _ = writeln!(out, "{text}{}", style.red(&cells[4]));
    };
    let _ = writeln!(out, "{}", style.bold(line(header).trim_end()));
    if let Some((0, cells)) = &failure {
        failure_row(out, cells);
    }
    for (row, step) in cells.iter().zip(steps) {
        let text = line([&row[0], &row[1], &row[2], &row[3], ""]);
        let effect = match step.kind {
            StepKind::StoreBuffered => style.yellow(&row[4]),
            StepKind::StoreToMemory => style.green(&row[4]),
            StepKind::LoadFromMemory | StepKind::LoadFromBuffer => style.cyan(&row[4]),
            StepKind::Fence | StepKind::Lock | StepKind::Unlock | StepKind::Rmw => {
                style.bold(&row[4])
            }
            _ => row[4].clone(),
        };
        let _ = writeln!(out, "{text}{effect}");
        if let Some((after, cells)) = &failure
            && *after == step.step
        {
            failure_row(out, cells);
            if steps.len() > step.step {
                let _ = writeln!(
                    out,
                    "  {}",
                    style.dim("after the failure, which does not depend on them (they complete the execution the check confirms):")
                );
            }
        }
    }
}

/// The file name without its directories (the header line has the path).
fn short_file(file: &str) -> &str {
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

/// `text` cut to `width` characters with an ellipsis.
fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(width.saturating_sub(1)).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests;
