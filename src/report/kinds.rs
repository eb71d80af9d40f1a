//! The report's names for what ran and how it ended: enums of the schema,
//! serialised as the strings `docs/reports.md` lists, and shown by the
//! text report with the same words.

use serde::Serialize;

/// Says the name of a value as the report writes it.
macro_rules! named {
    ($kind:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $kind {
            /// The name the report writes.
            pub fn name(self) -> &'static str {
                match self {
                    $($kind::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $kind {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// The engine whose answer a report is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnsweringEngine {
    /// The native engine.
    Smc,
    /// The CBMC path.
    Cbmc,
}

named!(AnsweringEngine { Smc => "smc", Cbmc => "cbmc" });

/// How the native engine's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NativeOutcome {
    Safe,
    Violation,
    /// It does not model the program (the reason says what, and where).
    Declined,
    /// The other engine answered first.
    Stopped,
    Timeout,
    MemoryLimit,
    Failed,
}

named!(NativeOutcome {
    Safe => "safe",
    Violation => "violation",
    Declined => "declined",
    Stopped => "stopped",
    Timeout => "timeout",
    MemoryLimit => "memory-limit",
    Failed => "failed",
});

/// The native engine's search that answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NativeSearch {
    /// Reads-from stateless model checking.
    RfSmc,
    /// The explicit-state search.
    Explicit,
}

named!(NativeSearch { RfSmc => "rf-smc", Explicit => "explicit" });

/// Where a witness's order of steps comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WitnessSource {
    /// The interleaving the native check found.
    NativeCheck,
    /// The order CBMC's counterexample recorded (unchecked).
    SmaTrace,
}

named!(WitnessSource { NativeCheck => "native-check", SmaTrace => "sma-trace" });
