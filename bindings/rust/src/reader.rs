//! Validation in the order of spec section 6; each failure carries its rule number.

use std::collections::{HashMap, HashSet};

use crate::dtype::{self, SizeError};
use crate::{
    align_up, crc32c, utf8, Error, Value, DATA_ALIGNMENT, ENTRY_HEADER_SIZE, FEATURE_TRAILER,
    INDEX_HEADER_SIZE, MAGIC, PREAMBLE_SIZE, RECORD_HAS_CHECKSUM, RECORD_SIZE, TRAILER_SIZE,
};

/// Caps on every size the file declares; exceeding one rejects the file (fail closed).
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_index_bytes: u64,
    pub max_tensors: u32,
    pub max_metadata_entries: u32,
    pub max_dims: u32,
    pub max_rank: u32,
    pub max_name_bytes: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_index_bytes: 256 << 20,
            max_tensors: 1 << 20,
            max_metadata_entries: 1 << 16,
            max_dims: 1 << 24,
            max_rank: 32,
            max_name_bytes: 4096,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    /// Rule 31: every padding byte is zero.
    pub strict_padding: bool,
    /// Rule 36: per-tensor CRC32C.
    pub verify_checksums: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preamble {
    pub version_major: u16,
    pub version_minor: u16,
    pub alignment: u32,
    pub required_features: u32,
    pub optional_features: u32,
    pub index_offset: u64,
    pub index_length: u64,
    pub data_offset: u64,
    pub data_length: u64,
    pub has_trailer: bool,
}

#[derive(Clone, Debug)]
pub struct TensorInfo {
    pub name: String,
    pub dtype: &'static dtype::DType,
    pub shape: Vec<u64>,
    /// Absolute offset in the file.
    pub offset: u64,
    pub byte_length: u64,
    pub checksum: Option<u32>,
}

/// A tensor's bytes, borrowed from the validated buffer without copying.
#[derive(Clone, Copy, Debug)]
pub struct TensorView<'a> {
    pub info: &'a TensorInfo,
    pub data: &'a [u8],
}

pub struct Reader<'a> {
    bytes: &'a [u8],
    preamble: Preamble,
    tensors: Vec<TensorInfo>,
    by_name: HashMap<String, usize>,
    metadata: Vec<(String, Value)>,
    skipped_metadata: u32,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn fail<T>(rule: u32, message: String) -> Result<T, Error> {
    Err(Error::rule(rule, message))
}

impl<'a> Reader<'a> {
    /// Validates `bytes` (a whole file) and returns a reader that lends views into it.
    pub fn new(bytes: &'a [u8], options: &Options) -> Result<Reader<'a>, Error> {
        let size = bytes.len() as u64;
        if size < PREAMBLE_SIZE {
            return fail(1, format!("{} bytes, smaller than the 64-byte preamble", size));
        }
        let p = &bytes[..64];
        if p[..8] != MAGIC {
            return fail(2, "not a metatensor file (bad magic)".into());
        }
        let mut pre = Preamble {
            version_major: u16_at(p, 8),
            version_minor: u16_at(p, 10),
            ..Preamble::default()
        };
        if pre.version_major != 1 {
            return fail(3, format!("version {}.{} unsupported", pre.version_major, pre.version_minor));
        }
        if crc32c(&p[..60], 0) != u32_at(p, 60) {
            return fail(4, "preamble CRC32C mismatch".into());
        }
        pre.alignment = u32_at(p, 12);
        pre.required_features = u32_at(p, 16);
        pre.optional_features = u32_at(p, 20);
        pre.index_offset = u64_at(p, 24);
        pre.index_length = u64_at(p, 32);
        pre.data_offset = u64_at(p, 40);
        pre.data_length = u64_at(p, 48);
        if pre.required_features & !FEATURE_TRAILER != 0 {
            return fail(5, format!("unknown required features {:#x}", pre.required_features));
        }
        if u32_at(p, 56) != 0 {
            return fail(6, "preamble reserved bytes are not zero".into());
        }
        let a = pre.alignment as u64;
        if !(64..=(1 << 20)).contains(&a) || !a.is_power_of_two() {
            return fail(7, format!("alignment {} invalid", a));
        }
        let mut limit = size;
        if pre.required_features & FEATURE_TRAILER != 0 {
            pre.has_trailer = true;
            if pre.index_offset != 0 || pre.index_length != 0 || pre.data_length != 0 {
                return fail(8, "trailer flag set but preamble index/data fields not zero".into());
            }
            if size < PREAMBLE_SIZE + TRAILER_SIZE {
                return fail(8, "no room for the trailer".into());
            }
            let t = &bytes[(size - TRAILER_SIZE) as usize..];
            if &t[28..32] != b"MTFT" || crc32c(&t[..24], 0) != u32_at(t, 24) {
                return fail(8, "bad trailer magic or CRC32C".into());
            }
            pre.index_offset = u64_at(t, 0);
            pre.index_length = u64_at(t, 8);
            pre.data_length = u64_at(t, 16);
            limit = size - TRAILER_SIZE;
        }
        if pre.index_length > options.limits.max_index_bytes {
            return fail(9, format!("index of {} bytes exceeds the limit", pre.index_length));
        }
        let data_align = DATA_ALIGNMENT.max(a);
        if pre.data_offset % data_align != 0 {
            return fail(10, format!("data offset {} misaligned", pre.data_offset));
        }
        let index_end = pre.index_offset.checked_add(pre.index_length);
        let data_end = pre.data_offset.checked_add(pre.data_length);
        let (index_end, data_end) = match (index_end, data_end) {
            (Some(i), Some(d)) if i <= limit && d <= limit => (i, d),
            _ => return fail(11, "index or data region reaches past the end of the file".into()),
        };
        if pre.index_offset < PREAMBLE_SIZE
            || pre.data_offset < PREAMBLE_SIZE
            || (pre.index_offset < data_end && pre.data_offset < index_end)
        {
            return fail(12, "regions overlap".into());
        }
        let covers = if pre.index_offset < pre.data_offset {
            pre.index_offset == PREAMBLE_SIZE
                && pre.data_offset == align_up(index_end, data_align)
                && data_end == limit
        } else {
            pre.data_offset == data_align && pre.index_offset == align_up(data_end, 8) && index_end == limit
        };
        if !covers {
            return fail(13, "regions do not tile the file exactly".into());
        }
        let mut r = Reader {
            bytes,
            preamble: pre,
            tensors: Vec::new(),
            by_name: HashMap::new(),
            metadata: Vec::new(),
            skipped_metadata: 0,
        };
        r.validate_index(options)?;
        if options.strict_padding {
            r.verify_padding()?;
        }
        if options.verify_checksums {
            r.verify_checksums()?;
        }
        Ok(r)
    }

    fn validate_index(&mut self, options: &Options) -> Result<(), Error> {
        let pre = self.preamble.clone();
        let len = pre.index_length;
        if len < INDEX_HEADER_SIZE + 4 {
            return fail(14, "index shorter than its header".into());
        }
        let ix: &'a [u8] = &self.bytes[pre.index_offset as usize..(pre.index_offset + len) as usize];
        if &ix[..4] != b"MTFI" || u32_at(ix, 24) != 0 || u32_at(ix, 28) != 0 {
            return fail(14, "index header lacks 'MTFI' or has reserved words set".into());
        }
        let tensor_count = u32_at(ix, 4);
        let meta_count = u32_at(ix, 8);
        let dims_count = u32_at(ix, 12);
        let meta_bytes = u32_at(ix, 16) as u64;
        let string_bytes = u32_at(ix, 20) as u64;
        let l = &options.limits;
        if tensor_count > l.max_tensors || meta_count > l.max_metadata_entries || dims_count > l.max_dims {
            return fail(15, format!("counts {}/{}/{} exceed the limits", tensor_count, meta_count, dims_count));
        }
        let expected = INDEX_HEADER_SIZE
            + RECORD_SIZE * tensor_count as u64
            + 8 * dims_count as u64
            + meta_bytes
            + string_bytes
            + 4;
        if expected != len {
            return fail(14, format!("index sections add up to {} bytes, index is {}", expected, len));
        }
        if crc32c(&ix[..(len - 4) as usize], 0) != u32_at(ix, (len - 4) as usize) {
            return fail(16, "index CRC32C mismatch".into());
        }
        let records_at = INDEX_HEADER_SIZE as usize;
        let dims_at = records_at + (RECORD_SIZE * tensor_count as u64) as usize;
        let meta_at = dims_at + 8 * dims_count as usize;
        let strings_at = meta_at + meta_bytes as usize;
        let strings = &ix[strings_at..strings_at + string_bytes as usize];
        let dims: Vec<u64> = (0..dims_count as usize).map(|i| u64_at(ix, dims_at + 8 * i)).collect();

        let a = pre.alignment as u64;
        let mut cursor = 0u64;
        let mut prev_offset = 0u64;
        for i in 0..tensor_count as usize {
            let rb = &ix[records_at + i * RECORD_SIZE as usize..records_at + (i + 1) * RECORD_SIZE as usize];
            let offset = u64_at(rb, 0);
            let length = u64_at(rb, 8);
            let name_offset = u32_at(rb, 16) as u64;
            let name_length = u32_at(rb, 20) as u64;
            let dims_index = u32_at(rb, 24) as u64;
            let dtype_id = u16_at(rb, 28);
            let rank = rb[30] as u64;
            let flags = rb[31];
            let checksum = u32_at(rb, 32);
            let reserved = u32_at(rb, 36);
            let w = format!("tensor #{}", i);
            if flags & !RECORD_HAS_CHECKSUM != 0
                || reserved != 0
                || (flags & RECORD_HAS_CHECKSUM == 0 && checksum != 0)
            {
                return fail(17, format!("{}: reserved flags or fields set", w));
            }
            let dt = match dtype::by_id(dtype_id) {
                Some(d) => d,
                None => return fail(18, format!("{}: unknown dtype id {}", w, dtype_id)),
            };
            if rank > l.max_rank as u64 {
                return fail(19, format!("{}: rank {} exceeds the limit", w, rank));
            }
            if dims_index + rank > dims_count as u64 {
                return fail(20, format!("{}: dims reference out of bounds", w));
            }
            if name_offset + name_length > string_bytes {
                return fail(21, format!("{}: name reference out of bounds", w));
            }
            let name_bytes = &strings[name_offset as usize..(name_offset + name_length) as usize];
            let name = match utf8(name_bytes) {
                Some(s) if !s.is_empty() && s.len() <= l.max_name_bytes as usize => s,
                _ => return fail(22, format!("{}: name empty, too long or not UTF-8", w)),
            };
            let w = format!("tensor #{} '{}'", i, name);
            if self.by_name.insert(name.to_string(), i).is_some() {
                return fail(23, format!("{}: duplicate name", w));
            }
            let shape = dims[dims_index as usize..(dims_index + rank) as usize].to_vec();
            let expected = match dtype::byte_length(dt, &shape) {
                Ok(n) => n,
                Err(SizeError::Overflow) => return fail(24, format!("{}: size overflows", w)),
                Err(SizeError::PartialBlock) => return fail(25, format!("{}: partial block", w)),
            };
            let end = match offset.checked_add(length) {
                Some(e) => e,
                None => return fail(24, format!("{}: offset + length overflows", w)),
            };
            if expected != length {
                return fail(25, format!("{}: byte length {} but dtype x shape is {}", w, length, expected));
            }
            if offset % a != 0 {
                return fail(26, format!("{}: offset {} misaligned", w, offset));
            }
            if i > 0 && offset < prev_offset {
                return fail(27, format!("{}: records not sorted by offset", w));
            }
            if offset < cursor {
                return fail(28, format!("{}: overlaps the previous tensor", w));
            }
            if offset - cursor >= a {
                return fail(29, format!("{}: padding before it is too long", w));
            }
            if end > pre.data_length {
                return fail(30, format!("{}: ends past the data region", w));
            }
            cursor = end;
            prev_offset = offset;
            self.tensors.push(TensorInfo {
                name: name.to_string(),
                dtype: dt,
                shape,
                offset: pre.data_offset + offset,
                byte_length: length,
                checksum: if flags & RECORD_HAS_CHECKSUM != 0 { Some(checksum) } else { None },
            });
        }
        if cursor != pre.data_length {
            return fail(29, "data region does not end with the last tensor".into());
        }
        self.validate_metadata(&ix[meta_at..strings_at], meta_count, strings, l.max_name_bytes)
    }

    fn validate_metadata(&mut self, section: &[u8], count: u32, strings: &[u8], max_key: u32) -> Result<(), Error> {
        let mut keys: HashSet<&[u8]> = HashSet::new();
        let mut pos = 0usize;
        for i in 0..count {
            let w = format!("metadata entry #{}", i);
            if section.len() - pos < ENTRY_HEADER_SIZE as usize {
                return fail(32, format!("{}: runs past the section", w));
            }
            let e = &section[pos..];
            let length = u32_at(e, 0) as usize;
            let key_offset = u32_at(e, 4) as u64;
            let key_length = u32_at(e, 8) as u64;
            let ty = e[12];
            let elem = e[13];
            if length < ENTRY_HEADER_SIZE as usize || length > section.len() - pos || u16_at(e, 14) != 0 {
                return fail(32, format!("{}: bad length or reserved bytes", w));
            }
            if key_offset + key_length > strings.len() as u64 {
                return fail(33, format!("{}: key out of bounds", w));
            }
            let kb = &strings[key_offset as usize..(key_offset + key_length) as usize];
            let key = match utf8(kb) {
                Some(k) if !k.is_empty() && k.len() <= max_key as usize => k,
                _ => return fail(33, format!("{}: key empty, too long or not UTF-8", w)),
            };
            if !keys.insert(kb) {
                return fail(34, format!("{}: duplicate key '{}'", w, key));
            }
            let v = &e[ENTRY_HEADER_SIZE as usize..length];
            pos += length;
            if !(1..=7).contains(&ty) {
                self.skipped_metadata += 1;
                continue;
            }
            let bad = |why: &str| -> Result<(), Error> { fail(35, format!("{} '{}': {}", w, key, why)) };
            if ty != 7 && elem != 0 {
                return bad("element type on a scalar").map(|_| ());
            }
            let value = match ty {
                1 => {
                    if v.len() != 1 || v[0] > 1 {
                        return bad("bool must be one byte 0 or 1");
                    }
                    Value::Bool(v[0] == 1)
                }
                2 | 3 | 4 => {
                    if v.len() != 8 {
                        return bad("payload must be 8 bytes");
                    }
                    let x = u64_at(v, 0);
                    match ty {
                        2 => Value::I64(x as i64),
                        3 => Value::U64(x),
                        _ => Value::F64(f64::from_bits(x)),
                    }
                }
                5 => match utf8(v) {
                    Some(s) => Value::String(s.to_string()),
                    None => return bad("string is not UTF-8"),
                },
                6 => Value::Bytes(v.to_vec()),
                _ => match elem {
                    1 => {
                        if v.iter().any(|&b| b > 1) {
                            return bad("bool element is not 0 or 1");
                        }
                        Value::BoolArray(v.iter().map(|&b| b == 1).collect())
                    }
                    2 | 3 | 4 => {
                        if v.len() % 8 != 0 {
                            return bad("array payload is not whole elements");
                        }
                        let xs = (0..v.len() / 8).map(|k| u64_at(v, 8 * k));
                        match elem {
                            2 => Value::I64Array(xs.map(|x| x as i64).collect()),
                            3 => Value::U64Array(xs.collect()),
                            _ => Value::F64Array(xs.map(f64::from_bits).collect()),
                        }
                    }
                    5 => {
                        if v.len() < 4 {
                            return bad("string array lacks its count");
                        }
                        let n = u32_at(v, 0) as usize;
                        if n > (v.len() - 4) / 4 {
                            return bad("string array count exceeds its payload");
                        }
                        let mut out = Vec::with_capacity(n);
                        let mut p = 4usize;
                        for _ in 0..n {
                            if v.len() - p < 4 {
                                return bad("string array element runs past the payload");
                            }
                            let sl = u32_at(v, p) as usize;
                            p += 4;
                            if sl > v.len() - p {
                                return bad("string array element runs past the payload");
                            }
                            match utf8(&v[p..p + sl]) {
                                Some(s) => out.push(s.to_string()),
                                None => return bad("string array element is not UTF-8"),
                            }
                            p += sl;
                        }
                        if p != v.len() {
                            return bad("string array has trailing bytes");
                        }
                        Value::StringArray(out)
                    }
                    _ => return bad("array element type is not bool, i64, u64, f64 or string"),
                },
            };
            self.metadata.push((key.to_string(), value));
        }
        if pos != section.len() {
            return fail(32, "metadata entries do not fill the section".into());
        }
        Ok(())
    }

    fn check_zero(&self, from: u64, to: u64) -> Result<(), Error> {
        match self.bytes[from as usize..to as usize].iter().position(|&b| b != 0) {
            Some(k) => fail(31, format!("padding byte at {} is not zero", from + k as u64)),
            None => Ok(()),
        }
    }

    /// Rule 31 over every padding byte.
    pub fn verify_padding(&self) -> Result<(), Error> {
        let p = &self.preamble;
        if p.index_offset < p.data_offset {
            self.check_zero(p.index_offset + p.index_length, p.data_offset)?;
        } else {
            self.check_zero(PREAMBLE_SIZE, p.data_offset)?;
            self.check_zero(p.data_offset + p.data_length, p.index_offset)?;
        }
        let mut cursor = p.data_offset;
        for t in &self.tensors {
            self.check_zero(cursor, t.offset)?;
            cursor = t.offset + t.byte_length;
        }
        Ok(())
    }

    /// Rule 36 for every tensor that stores a checksum.
    pub fn verify_checksums(&self) -> Result<(), Error> {
        for (i, t) in self.tensors.iter().enumerate() {
            if let Some(want) = t.checksum {
                let got = crc32c(&self.bytes[t.offset as usize..(t.offset + t.byte_length) as usize], 0);
                if got != want {
                    return fail(36, format!("tensor #{} '{}': CRC32C mismatch", i, t.name));
                }
            }
        }
        Ok(())
    }

    pub fn preamble(&self) -> &Preamble {
        &self.preamble
    }
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }
    pub fn metadata(&self) -> &[(String, Value)] {
        &self.metadata
    }
    pub fn skipped_metadata(&self) -> u32 {
        self.skipped_metadata
    }
    pub fn metadata_value(&self, key: &str) -> Option<&Value> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn tensor(&self, i: usize) -> TensorView<'_> {
        let t = &self.tensors[i];
        TensorView { info: t, data: &self.bytes[t.offset as usize..(t.offset + t.byte_length) as usize] }
    }
    pub fn find(&self, name: &str) -> Option<TensorView<'_>> {
        self.by_name.get(name).map(|&i| self.tensor(i))
    }
}
