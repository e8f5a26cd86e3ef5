//! Multi-section captures: text in which each section follows a banner line `# $ nvidia-smi …` naming its command.

use super::raw::{self, RawGpu};
use super::{read_piece, Parsed, Piece, SourceFormat};
use crate::error::{Error, Result};

/// Whether `text` holds `# $ …` banner lines.
pub(super) fn is_capture(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("# $ "))
}

/// One section: the command its banner names, and its body with the body's first line number.
struct Section<'a> {
    command: &'a str,
    banner_line: usize,
    first_line: usize,
    body: &'a str,
}

/// Splits at banners. A banner is either a `# $ command` line alone, or a block of `#` lines between two
/// rules of `#` characters holding such a line; text under a banner without a command is skipped.
fn sections(text: &str) -> Vec<Section<'_>> {
    let mut out = Vec::new();
    // The section being read: (command, banner line, first line, byte offset of its body).
    let mut open: Option<(&str, usize, usize, usize)> = None;
    let mut in_banner = false;
    let mut command: Option<(&str, usize)> = None;
    let mut offset = 0;
    for (i, raw_line) in text.split_inclusive('\n').enumerate() {
        let number = i + 1;
        let start = offset;
        offset += raw_line.len();
        let line = raw_line.trim_end_matches(['\n', '\r']).trim();
        let is_rule = line.len() >= 3 && line.bytes().all(|b| b == b'#');
        let banner_command = line.strip_prefix("# $ ").map(str::trim);
        if is_rule || (banner_command.is_some() && !in_banner) {
            if let Some((cmd, banner_line, first_line, body_start)) = open.take() {
                if let Some(body) = text.get(body_start..start) {
                    out.push(Section {
                        command: cmd,
                        banner_line,
                        first_line,
                        body,
                    });
                }
            }
        }
        if is_rule {
            if in_banner {
                in_banner = false;
                if let Some((cmd, banner_line)) = command.take() {
                    open = Some((cmd, banner_line, number + 1, offset));
                }
            } else {
                in_banner = true;
                command = None;
            }
        } else if let Some(cmd) = banner_command {
            if in_banner {
                command = Some((cmd, number));
            } else {
                open = Some((cmd, number, number + 1, offset));
            }
        }
    }
    if let Some((cmd, banner_line, first_line, body_start)) = open {
        if let Some(body) = text.get(body_start..) {
            out.push(Section {
                command: cmd,
                banner_line,
                first_line,
                body,
            });
        }
    }
    out
}

/// The format a banner's command prints, if gpu-share reads it.
pub(super) fn command_format(command: &str) -> Option<SourceFormat> {
    let mut words = command.split_whitespace().peekable();
    while words
        .peek()
        .is_some_and(|w| *w == "sudo" || w.contains('='))
    {
        words.next();
    }
    let program = words.next()?;
    let args: Vec<&str> = words
        .take_while(|w| !w.starts_with('|') && !w.starts_with('>'))
        .collect();
    let has = |flag: &str| args.contains(&flag);
    if program.ends_with("kubectl") {
        let nodes = args.iter().any(|a| matches!(*a, "nodes" | "node" | "no"));
        let json = has("json") || has("-ojson") || has("--output=json") || has("-o=json");
        let slices = args
            .iter()
            .any(|a| matches!(*a, "resourceslices" | "resourceslice"));
        if slices {
            return Some(SourceFormat::KubectlResourceSlices);
        }
        return (nodes && json).then_some(SourceFormat::KubectlNodes);
    }
    if !program.ends_with("nvidia-smi") {
        return None;
    }
    if args.first() == Some(&"mig") {
        if has("-lgi") || has("--list-gpu-instances") {
            return Some(SourceFormat::SmiMigGpuInstances);
        }
        if has("-lci") || has("--list-compute-instances") {
            return Some(SourceFormat::SmiMigComputeInstances);
        }
        let lists = args.iter().any(|a| {
            matches!(
                *a,
                "-lgip"
                    | "-lgipp"
                    | "--list-gpu-instance-profiles"
                    | "--list-gpu-instance-possible-placements"
            )
        });
        return lists.then_some(SourceFormat::SmiMigProfiles);
    }
    if args.iter().any(|a| a.starts_with("--query-gpu")) {
        return args
            .iter()
            .any(|a| a.starts_with("--format=csv"))
            .then_some(SourceFormat::SmiQueryCsv);
    }
    if has("-x") || has("--xml-format") || has("-qx") || has("-xq") {
        return Some(SourceFormat::SmiXml);
    }
    if has("-L") || has("--list-gpus") {
        return Some(SourceFormat::SmiList);
    }
    // `nvidia-smi` alone, or with only a GPU selection, prints the table.
    let mut rest = args.iter();
    while let Some(a) = rest.next() {
        match *a {
            "-i" | "--id" => {
                rest.next();
            }
            a if a.starts_with("--id=") => {}
            _ => return None,
        }
    }
    Some(SourceFormat::SmiTable)
}

/// Reads every section whose command gpu-share knows. GPU facts come from the best section
/// (`-q -x` > `--query-gpu` CSV > table > `-L` > `mig -lgi` > `mig -lci`; the first of each kind, e.g. the
/// idle one of an idle/load pair), filled in from the others; MIG devices from the table get their names
/// from `-L`, GPU instances their placements from `mig -lgi`.
pub(super) fn read(text: &str) -> Result<Parsed> {
    let mut pieces: Vec<(SourceFormat, Vec<RawGpu>)> = Vec::new();
    let mut parsed = Parsed::default();
    let mut failures: Vec<(usize, &str, Error)> = Vec::new();
    let mut read_any = false;
    for s in sections(text) {
        let Some(format) = command_format(s.command) else {
            continue;
        };
        let is_gpus = !matches!(
            format,
            SourceFormat::SmiMigProfiles
                | SourceFormat::KubectlNodes
                | SourceFormat::KubectlResourceSlices
        );
        if is_gpus && pieces.iter().any(|(f, _)| *f == format) {
            continue;
        }
        match read_piece(format, s.body, s.first_line) {
            Ok(Piece::Gpus(gpus)) => {
                read_any = true;
                pieces.push((format, gpus));
            }
            Ok(other) => {
                read_any = true;
                parsed.absorb(Parsed::from_piece(format, other));
            }
            Err(e) => failures.push((s.banner_line, s.command, e)),
        }
    }
    if !read_any {
        return Err(match failures.into_iter().next() {
            Some((_, command, e)) => Error {
                message: format!("{} (in the section of `{command}`)", e.message),
                ..e
            },
            None => Error::new(
                crate::error::ErrorKind::Syntax,
                format!(
                    "the capture has no section gpu-share reads; it reads the output of {}",
                    super::ACCEPTED
                ),
            ),
        });
    }
    for (line, command, e) in failures {
        parsed.notes.push(format!(
            "the section of `{command}` (line {line}) was skipped: {e}"
        ));
    }
    crate::sort::sort_by_key(&mut pieces, |(f, _)| {
        SourceFormat::ALL.iter().position(|a| a == f)
    });
    let mut formats = Vec::new();
    let mut gpus: Vec<RawGpu> = Vec::new();
    for (i, (format, piece)) in pieces.into_iter().enumerate() {
        formats.push(format);
        if i == 0 {
            gpus = piece;
        } else {
            raw::merge_same_machine(&mut gpus, piece);
        }
    }
    if !gpus.is_empty() {
        let mut gpu_part = Parsed::from_gpus(&formats, gpus);
        gpu_part.absorb(parsed);
        parsed = gpu_part;
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_commands() {
        assert_eq!(command_format("nvidia-smi"), Some(SourceFormat::SmiTable));
        assert_eq!(
            command_format("nvidia-smi -i 0"),
            Some(SourceFormat::SmiTable)
        );
        assert_eq!(command_format("nvidia-smi -q"), None);
        assert_eq!(
            command_format("sudo nvidia-smi -q -x"),
            Some(SourceFormat::SmiXml)
        );
        assert_eq!(command_format("nvidia-smi -L"), Some(SourceFormat::SmiList));
        assert_eq!(
            command_format("nvidia-smi --query-gpu=index,name --format=csv,noheader"),
            Some(SourceFormat::SmiQueryCsv)
        );
        assert_eq!(command_format("nvidia-smi --help-query-gpu"), None);
        assert_eq!(
            command_format("nvidia-smi mig -lgipp"),
            Some(SourceFormat::SmiMigProfiles)
        );
        assert_eq!(
            command_format("sudo nvidia-smi mig -i 0 -lgi"),
            Some(SourceFormat::SmiMigGpuInstances)
        );
        assert_eq!(
            command_format("nvidia-smi mig -lci"),
            Some(SourceFormat::SmiMigComputeInstances)
        );
        assert_eq!(command_format("nvidia-smi mig -lcip"), None);
        assert_eq!(
            command_format("kubectl get nodes -o json"),
            Some(SourceFormat::KubectlNodes)
        );
        assert_eq!(command_format("readelf --dyn-syms"), None);
    }

    #[test]
    fn splits_at_both_banner_styles() {
        let text = "preamble\n####\n# title\n# $ nvidia-smi -L\n####\nGPU 0: X (UUID: GPU-1)\n# $ nvidia-smi\nbody\n";
        let s = sections(text);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].command, s[0].first_line, s[0].banner_line),
            ("nvidia-smi -L", 6, 4)
        );
        assert_eq!(s[0].body, "GPU 0: X (UUID: GPU-1)\n");
        assert_eq!(
            (s[1].command, s[1].first_line, s[1].body),
            ("nvidia-smi", 8, "body\n")
        );
    }
}
