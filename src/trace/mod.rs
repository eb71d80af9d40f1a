//! Trace: decodes the SMA event records of a CBMC counterexample into an
//! execution (events per thread, reads-from) of the original program, and
//! renders witnesses against the source.
