//! A read-only file mapping through the C library's mmap (std links it on unix already).

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::Path;

extern "C" {
    fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    fn munmap(addr: *mut u8, len: usize) -> i32;
}

const PROT_READ: i32 = 1;
const MAP_SHARED: i32 = 1;

/// The whole file mapped read-only. Like any mapping it faults if another process truncates
/// the file while it is mapped; `Reader` never touches bytes outside the validated layout.
pub struct MappedFile {
    ptr: *mut u8,
    len: usize,
    _file: File,
}

impl MappedFile {
    pub fn open(path: &Path) -> io::Result<MappedFile> {
        let file = File::open(path)?;
        let len = file.metadata()?.len() as usize;
        if len == 0 {
            return Ok(MappedFile { ptr: std::ptr::null_mut(), len: 0, _file: file });
        }
        // SAFETY: a fresh read-only shared mapping of a file we hold open.
        let ptr = unsafe { mmap(std::ptr::null_mut(), len, PROT_READ, MAP_SHARED, file.as_raw_fd(), 0) };
        if ptr as isize == -1 {
            return Err(io::Error::last_os_error());
        }
        Ok(MappedFile { ptr, len, _file: file })
    }

    pub fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: ptr..ptr+len is mapped for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        if self.len != 0 {
            // SAFETY: unmapping exactly what mmap returned.
            unsafe {
                munmap(self.ptr, self.len);
            }
        }
    }
}
