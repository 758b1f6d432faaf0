//! Streaming writer: the index follows the data (spec 2.2). Tensor bytes go straight to the
//! sink; only names, shapes and checksums are kept until `finish`.

use std::collections::HashSet;
use std::io::{self, Seek, SeekFrom, Write};

use crate::dtype::{self, DType};
use crate::{align_up, crc32c, Error, Value, DATA_ALIGNMENT, FEATURE_TRAILER, MAGIC, PREAMBLE_SIZE, RECORD_HAS_CHECKSUM};

struct Record {
    name: String,
    dtype: u16,
    shape: Vec<u64>,
    offset: u64,
    length: u64,
    checksum: u32,
}

pub struct Writer<W: Write> {
    sink: W,
    alignment: u64,
    data_offset: u64,
    position: u64,
    cursor: u64,
    records: Vec<Record>,
    names: HashSet<String>,
    metadata: Vec<(String, Value)>,
    current: Option<(u64, u32)>, // bytes written, running CRC of the open tensor
}

fn io_err(e: io::Error) -> Error {
    Error::other(format!("write failed: {}", e))
}

fn misuse<T>(m: String) -> Result<T, Error> {
    Err(Error::other(m))
}

fn preamble(alignment: u64, required: u32, io: u64, il: u64, d_off: u64, dl: u64) -> [u8; 64] {
    let mut p = [0u8; 64];
    p[..8].copy_from_slice(&MAGIC);
    p[8..10].copy_from_slice(&1u16.to_le_bytes());
    p[10..12].copy_from_slice(&0u16.to_le_bytes());
    p[12..16].copy_from_slice(&(alignment as u32).to_le_bytes());
    p[16..20].copy_from_slice(&required.to_le_bytes());
    p[24..32].copy_from_slice(&io.to_le_bytes());
    p[32..40].copy_from_slice(&il.to_le_bytes());
    p[40..48].copy_from_slice(&d_off.to_le_bytes());
    p[48..56].copy_from_slice(&dl.to_le_bytes());
    let c = crc32c(&p[..60], 0);
    p[60..64].copy_from_slice(&c.to_le_bytes());
    p
}

fn encode_value(v: &Value, out: &mut Vec<u8>) -> (u8, u8) {
    match v {
        Value::Bool(b) => {
            out.push(*b as u8);
            (1, 0)
        }
        Value::I64(x) => {
            out.extend_from_slice(&x.to_le_bytes());
            (2, 0)
        }
        Value::U64(x) => {
            out.extend_from_slice(&x.to_le_bytes());
            (3, 0)
        }
        Value::F64(x) => {
            out.extend_from_slice(&x.to_le_bytes());
            (4, 0)
        }
        Value::String(s) => {
            out.extend_from_slice(s.as_bytes());
            (5, 0)
        }
        Value::Bytes(b) => {
            out.extend_from_slice(b);
            (6, 0)
        }
        Value::BoolArray(a) => {
            out.extend(a.iter().map(|&b| b as u8));
            (7, 1)
        }
        Value::I64Array(a) => {
            a.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            (7, 2)
        }
        Value::U64Array(a) => {
            a.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            (7, 3)
        }
        Value::F64Array(a) => {
            a.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            (7, 4)
        }
        Value::StringArray(a) => {
            out.extend_from_slice(&(a.len() as u32).to_le_bytes());
            for s in a {
                out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
            (7, 5)
        }
    }
}

impl<W: Write> Writer<W> {
    /// Starts a file: writes the provisional preamble (trailer layout) and the padding up to
    /// the data region. `alignment` is a power of two in [64, 2^20].
    pub fn new(mut sink: W, alignment: u64) -> Result<Writer<W>, Error> {
        if !(64..=(1 << 20)).contains(&alignment) || !alignment.is_power_of_two() {
            return misuse(format!("alignment {} is not a power of two in [64, 1048576]", alignment));
        }
        let data_offset = DATA_ALIGNMENT.max(alignment);
        sink.write_all(&preamble(alignment, FEATURE_TRAILER, 0, 0, data_offset, 0)).map_err(io_err)?;
        sink.write_all(&vec![0u8; (data_offset - PREAMBLE_SIZE) as usize]).map_err(io_err)?;
        Ok(Writer {
            sink,
            alignment,
            data_offset,
            position: data_offset,
            cursor: 0,
            records: Vec::new(),
            names: HashSet::new(),
            metadata: Vec::new(),
            current: None,
        })
    }

    pub fn set_metadata(&mut self, key: &str, value: Value) -> Result<(), Error> {
        if key.is_empty() || key.len() > 4096 || self.metadata.iter().any(|(k, _)| k == key) {
            return misuse(format!("metadata key '{}' is empty, too long or already set", key));
        }
        self.metadata.push((key.to_string(), value));
        Ok(())
    }

    pub fn begin_tensor(&mut self, name: &str, dtype: &DType, shape: &[u64]) -> Result<(), Error> {
        if self.current.is_some() {
            return misuse(format!("begin_tensor('{}') inside another tensor", name));
        }
        if name.is_empty() || name.len() > 4096 || self.names.contains(name) || shape.len() > 32 {
            return misuse(format!("tensor name '{}' is empty, too long or reused, or rank > 32", name));
        }
        let length = match dtype::byte_length(dtype, shape) {
            Ok(n) => n,
            Err(e) => return misuse(format!("tensor '{}': no byte length ({:?})", name, e)),
        };
        let offset = align_up(self.cursor, self.alignment);
        let pad = self.data_offset + offset - self.position;
        self.sink.write_all(&vec![0u8; pad as usize]).map_err(io_err)?;
        self.position += pad;
        self.cursor = offset + length;
        self.names.insert(name.to_string());
        self.records.push(Record { name: name.to_string(), dtype: dtype.id, shape: shape.to_vec(), offset, length, checksum: 0 });
        self.current = Some((0, 0));
        Ok(())
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let (written, crc) = match self.current {
            Some(c) => c,
            None => return misuse("write outside a tensor".into()),
        };
        let r = self.records.last().unwrap();
        if bytes.len() as u64 > r.length - written {
            return misuse(format!("tensor '{}': more bytes than dtype x shape", r.name));
        }
        self.sink.write_all(bytes).map_err(io_err)?;
        self.position += bytes.len() as u64;
        self.current = Some((written + bytes.len() as u64, crc32c(bytes, crc)));
        Ok(())
    }

    pub fn end_tensor(&mut self) -> Result<(), Error> {
        let (written, crc) = match self.current.take() {
            Some(c) => c,
            None => return misuse("end_tensor without begin_tensor".into()),
        };
        let r = self.records.last_mut().unwrap();
        if written != r.length {
            return misuse(format!("tensor '{}': {} of {} bytes written", r.name, written, r.length));
        }
        r.checksum = crc;
        Ok(())
    }

    pub fn add_tensor(&mut self, name: &str, dtype: &DType, shape: &[u64], bytes: &[u8]) -> Result<(), Error> {
        self.begin_tensor(name, dtype, shape)?;
        self.write(bytes)?;
        self.end_tensor()
    }

    fn write_index(&mut self) -> Result<(u64, u64), Error> {
        if self.current.is_some() {
            return misuse("finish inside a tensor".into());
        }
        let index_offset = align_up(self.data_offset + self.cursor, 8);
        let pad = index_offset - self.position;
        self.sink.write_all(&vec![0u8; pad as usize]).map_err(io_err)?;
        let mut strings = Vec::new();
        let mut recs = Vec::new();
        let mut dims = Vec::new();
        let mut ndims = 0u32;
        for r in &self.records {
            recs.extend_from_slice(&r.offset.to_le_bytes());
            recs.extend_from_slice(&r.length.to_le_bytes());
            recs.extend_from_slice(&(strings.len() as u32).to_le_bytes());
            recs.extend_from_slice(&(r.name.len() as u32).to_le_bytes());
            recs.extend_from_slice(&ndims.to_le_bytes());
            recs.extend_from_slice(&r.dtype.to_le_bytes());
            recs.push(r.shape.len() as u8);
            recs.push(RECORD_HAS_CHECKSUM);
            recs.extend_from_slice(&r.checksum.to_le_bytes());
            recs.extend_from_slice(&0u32.to_le_bytes());
            strings.extend_from_slice(r.name.as_bytes());
            for d in &r.shape {
                dims.extend_from_slice(&d.to_le_bytes());
            }
            ndims += r.shape.len() as u32;
        }
        let mut meta = Vec::new();
        for (k, v) in &self.metadata {
            let mut payload = Vec::new();
            let (ty, elem) = encode_value(v, &mut payload);
            meta.extend_from_slice(&((16 + payload.len()) as u32).to_le_bytes());
            meta.extend_from_slice(&(strings.len() as u32).to_le_bytes());
            meta.extend_from_slice(&(k.len() as u32).to_le_bytes());
            meta.push(ty);
            meta.push(elem);
            meta.extend_from_slice(&[0, 0]);
            meta.extend_from_slice(&payload);
            strings.extend_from_slice(k.as_bytes());
        }
        let mut ix = Vec::new();
        ix.extend_from_slice(b"MTFI");
        for v in [self.records.len() as u32, self.metadata.len() as u32, ndims, meta.len() as u32, strings.len() as u32, 0, 0] {
            ix.extend_from_slice(&v.to_le_bytes());
        }
        ix.extend_from_slice(&recs);
        ix.extend_from_slice(&dims);
        ix.extend_from_slice(&meta);
        ix.extend_from_slice(&strings);
        let c = crc32c(&ix, 0);
        ix.extend_from_slice(&c.to_le_bytes());
        self.sink.write_all(&ix).map_err(io_err)?;
        Ok((index_offset, ix.len() as u64))
    }

    /// Writes the index and the trailer; works on any sink (pipes, sockets). Returns the sink.
    pub fn finish(mut self) -> Result<W, Error> {
        let (io, il) = self.write_index()?;
        let mut t = [0u8; 32];
        t[..8].copy_from_slice(&io.to_le_bytes());
        t[8..16].copy_from_slice(&il.to_le_bytes());
        t[16..24].copy_from_slice(&self.cursor.to_le_bytes());
        let c = crc32c(&t[..24], 0);
        t[24..28].copy_from_slice(&c.to_le_bytes());
        t[28..32].copy_from_slice(b"MTFT");
        self.sink.write_all(&t).map_err(io_err)?;
        self.sink.flush().map_err(io_err)?;
        Ok(self.sink)
    }
}

impl<W: Write + Seek> Writer<W> {
    /// Writes the index and rewrites the preamble in place (no trailer). The sink must have
    /// been at position 0 when the writer was created.
    pub fn finish_seek(mut self) -> Result<W, Error> {
        let (io, il) = self.write_index()?;
        let p = preamble(self.alignment, 0, io, il, self.data_offset, self.cursor);
        self.sink.seek(SeekFrom::Start(0)).map_err(io_err)?;
        self.sink.write_all(&p).map_err(io_err)?;
        self.sink.seek(SeekFrom::End(0)).map_err(io_err)?;
        self.sink.flush().map_err(io_err)?;
        Ok(self.sink)
    }
}
