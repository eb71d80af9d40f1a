//! Backend: finds CBMC, detects its version, runs it on a sequential program
//! with `--json-ui --trace` under a time limit, and parses the JSON result
//! into typed outcomes (never confusing success, failure, timeout, out of
//! memory and tool errors).
