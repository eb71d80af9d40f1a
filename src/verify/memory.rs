//! The memory limit of the engines (`--memory-limit`): no run may take
//! the machine down. By default each engine may take a third of the
//! machine's physical memory (so the three runs of `auto` fit side by
//! side: the native engine, CBMC under the model, CBMC under SC);
//! CBMC gets it as its address-space limit, the native engine watches its
//! resident memory against it. An engine that reaches it ends with a
//! message that says which engine, how much, and what to try.

/// The limit of a run: the one `asked` for, else the default, and never
/// more than the address space lazysma itself may take (`ulimit -v`),
/// which CBMC could not be given.
pub fn limit(asked: Option<u64>) -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| address_space_limit(&limits));
    match (asked.or_else(default_limit), own) {
        (Some(limit), Some(own)) => Some(limit.min(own)),
        (limit, own) => limit.or(own),
    }
}

/// The default limit: a third of the physical memory `/proc/meminfo`
/// gives (`MemTotal`), `None` where it cannot be read.
pub fn default_limit() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    physical_memory(&meminfo).map(|bytes| bytes / 3)
}

/// The soft address-space limit of a `/proc/self/limits` text, in bytes
/// (`None` when unlimited).
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn physical_memory(meminfo: &str) -> Option<u64> {
    crate::smc::search::proc_kilobytes(meminfo, "MemTotal:")
}

/// A size as `--memory-limit` takes it: bytes, or a whole number with K,
/// M, G or T (binary units), optionally followed by B or iB.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = trimmed[digits.len()..].to_ascii_uppercase();
    let shift = match unit.trim_end_matches("IB").trim_end_matches('B') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => {
            return Err(format!(
                "`{text}` is not a size: use bytes or a number with K, M, G or T (e.g. 4G)"
            ));
        }
    };
    match digits.parse::<u64>() {
        Ok(0) => Err("the memory limit is a positive size, not 0".to_string()),
        Ok(number) => number
            .checked_mul(1 << shift)
            .ok_or_else(|| format!("`{text}` is too large")),
        Err(_) => Err(format!(
            "`{text}` is not a size: use bytes or a number with K, M, G or T (e.g. 4G)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2KB"), Ok(2048));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn the_address_space_limit_is_read_from_the_process_limits() {
        let limited = "Limit Soft Hard Units\nMax address space         4096000000           4096000000           bytes\n";
        assert_eq!(address_space_limit(limited), Some(4_096_000_000));
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_limit(unlimited), None);
    }

    #[test]
    fn physical_memory_is_read_from_meminfo() {
        let meminfo = "MemTotal:       24582300 kB\nMemFree:  1 kB\n";
        assert_eq!(physical_memory(meminfo), Some(24_582_300 * 1024));
        assert_eq!(physical_memory("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn this_process_has_resident_memory() {
        let resident =
            crate::smc::search::resident_bytes().expect("/proc/self/status is readable on Linux");
        assert!(resident > 1 << 20, "{resident}");
        assert_eq!(crate::smc::search::human_size(3 << 29), "1.5 GiB");
        assert_eq!(crate::smc::search::human_size(100), "100 bytes");
    }
}
