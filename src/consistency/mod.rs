//! Execution consistency under SC, TSO and PSO: closure, VerifyTSO and
//! VerifyPSO (Bui et al., OOPSLA 2021, sec. 4). Independent of the rest of
//! lazysma: it works on executions from any source.
