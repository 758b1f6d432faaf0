//! Metatensor format v1 (`.mtf`): a second implementation, written from
//! `docs/metatensor-format.md` independently of the C++ library, with no dependency beyond std.
//!
//! * [`Reader`] validates a whole file held in a byte slice (rules 1..36 of spec section 6, same
//!   numbers and the same order as the C++ reader) and then lends zero-copy [`TensorView`]s.
//!   [`MappedFile`] maps a file read-only so the slice is the file itself.
//! * [`Writer`] streams tensors of any size into any `io::Write`: with [`Writer::finish`] it
//!   appends a trailer (pipes, sockets); with [`Writer::finish_seek`] it patches the preamble.

pub mod crc32c;
pub mod dtype;
mod mmap;
mod reader;
mod writer;

pub use crate::crc32c::crc32c;
pub use crate::dtype::{byte_length, DType, DTYPES};
pub use crate::mmap::MappedFile;
pub use crate::reader::{Limits, Options, Preamble, Reader, TensorInfo, TensorView};
pub use crate::writer::Writer;

pub const MAGIC: [u8; 8] = [0x89, b'M', b'T', b'F', 0x0D, 0x0A, 0x1A, 0x0A];
pub const PREAMBLE_SIZE: u64 = 64;
pub const TRAILER_SIZE: u64 = 32;
pub const INDEX_HEADER_SIZE: u64 = 32;
pub const RECORD_SIZE: u64 = 40;
pub const ENTRY_HEADER_SIZE: u64 = 16;
pub const DATA_ALIGNMENT: u64 = 4096;
pub const FEATURE_TRAILER: u32 = 1;
pub const RECORD_HAS_CHECKSUM: u8 = 1;

/// A metadata value (spec 4.4). Arrays are one level deep and homogeneous.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    String(String),
    Bytes(Vec<u8>),
    BoolArray(Vec<bool>),
    I64Array(Vec<i64>),
    U64Array(Vec<u64>),
    F64Array(Vec<f64>),
    StringArray(Vec<String>),
}

/// A rejected file or a failed operation. `rule` is the spec's rule number (1..36), or 0 when the
/// error is not about the file's bytes (I/O, misuse).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub rule: u32,
    pub message: String,
}

impl Error {
    pub fn rule(rule: u32, message: String) -> Error {
        Error { rule, message }
    }
    pub fn other(message: String) -> Error {
        Error { rule: 0, message }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.rule != 0 {
            write!(f, "rule {}: {}", self.rule, self.message)
        } else {
            write!(f, "{}", self.message)
        }
    }
}

impl std::error::Error for Error {}

pub(crate) fn align_up(v: u64, a: u64) -> u64 {
    (v + a - 1) / a * a
}

/// Strict UTF-8 is what `std::str::from_utf8` checks (no overlongs, no surrogates).
pub(crate) fn utf8(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}
