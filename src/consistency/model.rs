//! The memory models lazysma checks programs under: one type for the
//! whole tool (the options, the engines, the checker).

/// The memory model the program is checked under (the report writes it
/// as `sc`, `tso` or `pso`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryModel {
    /// Sequential consistency: every write reaches memory when issued.
    Sc,
    /// Total store order: one FIFO store buffer per thread.
    #[default]
    Tso,
    /// Partial store order: one FIFO store buffer per thread and variable.
    Pso,
}

impl std::fmt::Display for MemoryModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MemoryModel::Sc => "SC",
            MemoryModel::Tso => "TSO",
            MemoryModel::Pso => "PSO",
        })
    }
}

impl MemoryModel {
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Tso => "tso",
            MemoryModel::Pso => "pso",
        }
    }
}
