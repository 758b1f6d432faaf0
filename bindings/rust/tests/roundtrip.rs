//! The crate against itself and against the checked-in corpus (an independent encoder).
use alknet_metatensor::{byte_length, Options, Reader, Value, Writer, DTYPES};
use std::io::Cursor;
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../libs/tensor/tests/corpus")
}

fn strict() -> Options {
    Options { strict_padding: true, verify_checksums: true, ..Options::default() }
}

#[test]
fn every_dtype_round_trips_both_layouts() {
    for seek in [false, true] {
        let mut w = Writer::new(Cursor::new(Vec::new()), 128).unwrap();
        w.set_metadata("k", Value::StringArray(vec!["a".into()])).unwrap();
        let mut want = Vec::new();
        for (k, dt) in DTYPES.iter().enumerate() {
            let shape = [4u64, 32];
            let n = byte_length(dt, &shape).unwrap();
            let bytes: Vec<u8> = (0..n).map(|i| (i as usize * 13 + k) as u8).collect();
            w.begin_tensor(dt.name, dt, &shape).unwrap();
            for chunk in bytes.chunks(7) {
                w.write(chunk).unwrap();
            }
            w.end_tensor().unwrap();
            want.push(bytes);
        }
        let out = if seek { w.finish_seek().unwrap() } else { w.finish().unwrap() }.into_inner();
        let r = Reader::new(&out, &strict()).unwrap();
        assert_eq!(r.preamble().has_trailer, !seek);
        for (k, dt) in DTYPES.iter().enumerate() {
            let t = r.find(dt.name).unwrap();
            assert_eq!(t.data, want[k].as_slice());
            assert_eq!(t.info.offset % 128, 0);
        }
        assert_eq!(r.metadata_value("k"), Some(&Value::StringArray(vec!["a".into()])));
    }
}

#[test]
fn corpus_rules_match_file_names() {
    let mut checked = 0;
    for e in std::fs::read_dir(corpus_dir()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".mtf") {
            continue;
        }
        let bytes = std::fs::read(corpus_dir().join(&name)).unwrap();
        let got = Reader::new(&bytes, &strict());
        if name.starts_with("good-") {
            assert!(got.is_ok(), "{}: {}", name, got.err().unwrap());
        } else {
            let want: u32 = name[1..3].parse().unwrap();
            assert_eq!(got.err().map(|e| e.rule), Some(want), "{}", name);
        }
        checked += 1;
    }
    assert!(checked >= 44, "only {} corpus files", checked);
}

#[test]
fn every_truncation_is_rejected() {
    let mut w = Writer::new(Cursor::new(Vec::new()), 64).unwrap();
    w.add_tensor("a", &DTYPES[11], &[3], &[1u8; 12]).unwrap();
    let out = w.finish_seek().unwrap().into_inner();
    assert!(Reader::new(&out, &strict()).is_ok());
    for n in 0..out.len() {
        assert!(Reader::new(&out[..n], &strict()).is_err(), "truncated to {}", n);
    }
}

#[test]
fn writer_rejects_wrong_sizes() {
    let mut w = Writer::new(Vec::new(), 256).unwrap();
    assert!(w.add_tensor("a", &DTYPES[11], &[3], &[0u8; 13]).is_err());
    assert!(Writer::new(Vec::new(), 100).is_err());
}
