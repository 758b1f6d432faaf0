//! Cross-implementation checks driven by ctest (libs/tensor/tests/CMakeLists.txt):
//!   mtf-cross write DIR    writes rust-seek.mtf and rust-trailer.mtf
//!   mtf-cross read FILE... checks each file holds the cross-test content (spec section 8.2)
//!   mtf-cross corpus DIR   checks every corpus file gives the rule its name starts with
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::process::exit;

use alknet_metatensor::{byte_length, MappedFile, Options, Reader, Value, Writer, DTYPES};

/// Byte i of tensor k: the content formula both implementations generate independently.
fn content(k: usize, n: u64) -> Vec<u8> {
    (0..n).map(|i| ((i * 31 + k as u64 * 17 + 7) % 251) as u8).collect()
}

fn shape() -> Vec<u64> {
    vec![2, 3, 64]
}

fn metadata() -> Vec<(&'static str, Value)> {
    vec![
        ("s", Value::String("h\u{e9}llo".into())),
        ("i", Value::I64(-3)),
        ("u", Value::U64(u64::MAX)),
        ("f", Value::F64(0.25)),
        ("b", Value::Bool(true)),
        ("raw", Value::Bytes(vec![0, 1, 2, 255])),
        ("ab", Value::BoolArray(vec![true, false])),
        ("ai", Value::I64Array(vec![1, -2])),
        ("au", Value::U64Array(vec![5])),
        ("af", Value::F64Array(vec![1.5, -0.5])),
        ("as", Value::StringArray(vec!["x".into(), "yz".into()])),
    ]
}

fn write_dir(dir: &Path) -> Result<(), String> {
    for seek in [true, false] {
        let name = if seek { "rust-seek.mtf" } else { "rust-trailer.mtf" };
        let f = File::create(dir.join(name)).map_err(|e| e.to_string())?;
        let mut w = Writer::new(BufWriter::new(f), 256).map_err(|e| e.to_string())?;
        for (k, v) in metadata() {
            w.set_metadata(k, v).map_err(|e| e.to_string())?;
        }
        for (k, dt) in DTYPES.iter().enumerate() {
            let n = byte_length(dt, &shape()).unwrap();
            w.add_tensor(dt.name, dt, &shape(), &content(k, n)).map_err(|e| e.to_string())?;
        }
        if seek {
            w.finish_seek().map_err(|e| e.to_string())?;
        } else {
            w.finish().map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn check_file(path: &Path) -> Result<(), String> {
    let map = MappedFile::open(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let opts = Options { strict_padding: true, verify_checksums: true, ..Options::default() };
    let r = Reader::new(map.bytes(), &opts).map_err(|e| format!("{}: {}", path.display(), e))?;
    if r.tensors().len() != DTYPES.len() {
        return Err(format!("{}: {} tensors, want {}", path.display(), r.tensors().len(), DTYPES.len()));
    }
    for (k, dt) in DTYPES.iter().enumerate() {
        let t = r.find(dt.name).ok_or(format!("{}: no tensor '{}'", path.display(), dt.name))?;
        if t.info.dtype.id != dt.id || t.info.shape != shape() {
            return Err(format!("{}: '{}' has the wrong dtype or shape", path.display(), dt.name));
        }
        if t.data != content(k, byte_length(dt, &shape()).unwrap()).as_slice() {
            return Err(format!("{}: '{}' has the wrong bytes", path.display(), dt.name));
        }
    }
    for (k, v) in metadata() {
        if r.metadata_value(k) != Some(&v) {
            return Err(format!("{}: metadata '{}' is {:?}, want {:?}", path.display(), k, r.metadata_value(k), v));
        }
    }
    Ok(())
}

fn check_corpus(dir: &Path) -> Result<usize, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".mtf"))
        .collect();
    names.sort();
    let opts = Options { strict_padding: true, verify_checksums: true, ..Options::default() };
    for n in &names {
        let bytes = std::fs::read(dir.join(n)).map_err(|e| e.to_string())?;
        let got = Reader::new(&bytes, &opts);
        if n.starts_with("good-") {
            if let Err(e) = got {
                return Err(format!("{}: rejected: {}", n, e));
            }
        } else {
            let want: u32 = n[1..3].parse().map_err(|_| format!("{}: bad corpus name", n))?;
            match got {
                Ok(_) => return Err(format!("{}: accepted, want rule {}", n, want)),
                Err(e) if e.rule != want => return Err(format!("{}: rule {} ({}), want rule {}", n, e.rule, e, want)),
                Err(_) => {}
            }
        }
    }
    Ok(names.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = match (args.get(1).map(|s| s.as_str()), args.len()) {
        (Some("write"), 3) => write_dir(Path::new(&args[2])).map(|_| "wrote rust-seek.mtf, rust-trailer.mtf".to_string()),
        (Some("read"), n) if n >= 3 => args[2..]
            .iter()
            .try_for_each(|p| check_file(Path::new(p)))
            .map(|_| format!("{} file(s) match the cross-test content", args.len() - 2)),
        (Some("corpus"), 3) => check_corpus(Path::new(&args[2])).map(|n| format!("{} corpus files give their expected rule", n)),
        _ => {
            eprintln!("usage: mtf-cross write DIR | read FILE... | corpus DIR");
            exit(2)
        }
    };
    match result {
        Ok(msg) => println!("mtf-cross: {}", msg),
        Err(e) => {
            eprintln!("mtf-cross: {}", e);
            exit(1)
        }
    }
}
