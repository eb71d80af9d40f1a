//! How precise the points-to facts are over a corpus: for each C file
//! given, translated under SC with the default bounds, the accesses
//! through pointers and the locations and objects the facts let them
//! reach ([`lazysma::passes::points_to::Precision`]), then the averages.
//! Two sets of facts are measured: those of the program before constant
//! addresses are folded into its accesses, which the check of accesses
//! through converted pointers uses (every access still names its
//! pointer), and those the printer uses, after the folding, for the files
//! the translator accepts.
//!
//! Usage: `cargo run --release --example points_to_precision -- FILE...`

use lazysma::options::{SmaImplementation, TranslateOptions};
use lazysma::passes;
use lazysma::passes::points_to::Precision;
use std::path::Path;

/// The precision of the facts before the folding of constant addresses,
/// and of the printer's facts or why the translator refuses the program;
/// an error when the program does not get so far.
type Measured = (Precision, Result<Precision, String>);

/// The precision of the facts of the program at `path`.
fn precision_of(path: &Path, options: &TranslateOptions) -> Result<Measured, String> {
    let program = lazysma::frontend::load(path, options).map_err(|error| error.to_string())?;
    let mut labels = passes::walk::LabelGen::for_program(&program);
    let instances = passes::instantiate::instantiate(&program, options, &mut labels)
        .map_err(|diagnostic| diagnostic.message)?;
    let mut unfolded =
        passes::lazy::sequentialise_threads(&program, instances, options, &mut labels)
            .map_err(|diagnostic| diagnostic.message)?;
    passes::thread_arguments::propagate_thread_arguments(&mut unfolded);
    let checked = Precision::of(&passes::points_to::points_to(&unfolded), &unfolded.threads);
    let printed = passes::sequentialise(&program, options)
        .map_err(|diagnostic| diagnostic.message)
        .and_then(|sequential| match &sequential.points_to {
            Some(facts) => Ok(Precision::of(facts, &sequential.threads)),
            None => Err("no points-to facts".into()),
        });
    Ok((checked, printed))
}

/// Adds `part` to `total`.
fn add(total: &mut Precision, part: &Precision) {
    total.dereferences += part.dereferences;
    total.anywhere += part.anywhere;
    total.locations += part.locations;
    total.objects += part.objects;
}

/// A precision as the columns of one line.
fn columns(precision: &Precision) -> String {
    format!(
        "{}\t{}\t{}\t{}",
        precision.dereferences, precision.anywhere, precision.locations, precision.objects
    )
}

/// The averages of `total` over `files` files.
fn summary(what: &str, files: u64, total: &Precision) -> String {
    format!(
        "{what}: {files} files, {} accesses through pointers, {} may reach anything; per access {} locations, {} objects",
        total.dereferences,
        total.anywhere,
        ratio(total.locations, total.dereferences),
        ratio(total.objects, total.dereferences)
    )
}

/// `part / whole` with two decimals, `-` for no whole.
fn ratio(part: u64, whole: u64) -> String {
    match whole {
        0 => "-".into(),
        _ => format!("{:.2}", part as f64 / whole as f64),
    }
}

fn main() {
    let options = TranslateOptions {
        sma: SmaImplementation::Sc,
        ..TranslateOptions::default()
    };
    let (mut checked, mut printed) = (Precision::default(), Precision::default());
    let (mut checked_files, mut printed_files) = (0, 0);
    println!(
        "file\tchecked: dereferences\tanywhere\tlocations\tobjects\tprinted: dereferences\tanywhere\tlocations\tobjects"
    );
    for file in std::env::args().skip(1) {
        match precision_of(Path::new(&file), &options) {
            Ok((before_folding, after_folding)) => {
                checked_files += 1;
                add(&mut checked, &before_folding);
                let after = match after_folding {
                    Ok(precision) => {
                        printed_files += 1;
                        add(&mut printed, &precision);
                        columns(&precision)
                    }
                    Err(why) => format!("refused: {}", why.lines().next().unwrap_or_default()),
                };
                println!("{file}\t{}\t{after}", columns(&before_folding));
            }
            Err(why) => println!(
                "{file}\tnot lowered: {}",
                why.lines().next().unwrap_or_default()
            ),
        }
    }
    println!(
        "{}",
        summary("checked (before folding)", checked_files, &checked)
    );
    println!(
        "{}",
        summary("printed (after folding)", printed_files, &printed)
    );
}
