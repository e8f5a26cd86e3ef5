//! A result handed to JavaScript as flat arrays and a table of strings, which
//! `js/transfer.js` builds into the objects `JSON.parse` would make of the core's JSON with its
//! keys in camelCase (the tests hold the two to each other).
//!
//! Why not JSON text: a 100,000-ask `binPack` wrote 68 MB of it, decoded as UTF-8 and parsed by
//! the engine, one string per occurrence — the same 280-character time-slicing warning 100,000
//! times — which took more than the packing (BENCHMARKS.md, speed where users call it). Here a
//! string that recurs crosses once (`Encoded::intern`), numbers cross as they are, and nothing is
//! formatted or parsed.
//!
//! The stream `ops` is a value in prefix order: `NULL`, `FALSE`, `TRUE`; `NUMBER` (the next of
//! `numbers`); `STRING id`; `ARRAY n` then n values; `OBJECT n shape` then n (key id, value)
//! pairs. String ids index the table, which is one text cut at `offsets` (in UTF-16 units, as
//! JavaScript counts). Objects with the same keys in the same order have the same `shape`, a
//! number from 0 (in the order in which the first object of each ends), so JavaScript can build
//! the objects of a shape it meets often with one object literal (`js/transfer.js`). Values are what serde_json writes: a number that is not finite and `None` are `null`,
//! an enum variant with data is an object of one key, map keys are written as strings.

use crate::case;
use serde::ser::{self, Error as _, Serialize};
use serde_json::Error;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

pub const NULL: u32 = 0;
pub const FALSE: u32 = 1;
pub const TRUE: u32 = 2;
pub const NUMBER: u32 = 3;
pub const STRING: u32 = 4;
pub const ARRAY: u32 = 5;
pub const OBJECT: u32 = 6;

/// The longest string table one JavaScript string holds (V8: 2²⁹ − 24 UTF-16 units).
const MAX_TABLE_UNITS: usize = (1 << 29) - 24;

/// A value written for JavaScript (see the module's documentation).
#[derive(Default)]
pub struct Encoded {
    pub ops: Vec<u32>,
    pub numbers: Vec<f64>,
    pub strings: String,
    /// Where each string of the table starts, and after the last one where the table ends.
    pub offsets: Vec<u32>,
    /// Where each string starts in `strings`, in bytes, and after the last one where they end.
    starts: Vec<usize>,
    /// Recent strings by their hash's top bits: `(hash, id)`, `id` [`NONE`] when empty.
    recent: Vec<(u64, u32)>,
    /// Struct field names by address and length, renamed and interned once each.
    fields: HashMap<(usize, usize), u32, Mixed>,
    /// The last field names and unit variants met, by address: a struct's keys and an enum's
    /// names are the same few `&'static str`s, met millions of times in a large result.
    recent_fields: StaticIds,
    recent_variants: StaticIds,
    /// The keys of the objects open so far, the innermost's last.
    keys: Vec<u32>,
    /// Each shape's keys, and its number.
    shapes: HashMap<Box<[u32]>, u32, Mixed>,
    units: usize,
}

/// An empty slot of `recent`.
const NONE: u32 = u32::MAX;

/// `recent` has 2^RECENT_BITS slots: 64 KiB, which stays in the processor's cache.
const RECENT_BITS: u32 = 12;

/// `value` as serde_json would write it, keys in camelCase, for `js/transfer.js`.
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Encoded, Error> {
    let mut out = Encoded {
        offsets: vec![0],
        starts: vec![0],
        recent: vec![(0, NONE); 1 << RECENT_BITS],
        ..Encoded::default()
    };
    value.serialize(&mut out)?;
    Ok(out)
}

impl Encoded {
    /// The id of `text` in the table: the string's if it is still among the recent ones,
    /// otherwise a new entry. (The table may hold a string twice once the cache forgot it; what
    /// it saves are the strings a result repeats many times, such as one warning on every
    /// choice. Every string of a result is looked up: a table of them all cost a cache miss
    /// for each unique name, and the hash and comparison read eight bytes at a time.)
    fn intern(&mut self, text: &str) -> Result<u32, Error> {
        let hash = intern_hash(text.as_bytes());
        let slot = (hash >> (64 - RECENT_BITS)) as usize;
        let (seen, id) = self.recent[slot];
        if id != NONE && seen == hash {
            let at = id as usize;
            if same_bytes(
                &self.strings.as_bytes()[self.starts[at]..self.starts[at + 1]],
                text.as_bytes(),
            ) {
                return Ok(id);
            }
        }
        let units = if text.is_ascii() {
            text.len()
        } else {
            text.encode_utf16().count()
        };
        self.units += units;
        if self.units > MAX_TABLE_UNITS {
            return Err(Error::custom(
                "the result's text is longer than one JavaScript string may be",
            ));
        }
        let id = (self.starts.len() - 1) as u32;
        self.strings.push_str(text);
        self.starts.push(self.strings.len());
        self.offsets.push(self.units as u32);
        self.recent[slot] = (hash, id);
        Ok(id)
    }

    fn string(&mut self, text: &str) -> Result<(), Error> {
        let id = self.intern(text)?;
        self.ops.extend([STRING, id]);
        Ok(())
    }

    fn number(&mut self, n: f64) {
        if n.is_finite() {
            self.ops.push(NUMBER);
            self.numbers.push(n);
        } else {
            self.ops.push(NULL);
        }
    }

    /// Opens an array or object whose length (and an object's shape) is written when it closes.
    fn open(&mut self, tag: u32) -> Compound<'_> {
        self.ops.extend([tag, 0]);
        let at = self.ops.len() - 1;
        if tag == OBJECT {
            self.ops.push(0);
        }
        let keys_from = self.keys.len();
        Compound {
            out: self,
            at,
            count: 0,
            object: tag == OBJECT,
            keys_from,
        }
    }

    /// Writes `{variant: …}`'s head, the object serde_json writes for an enum variant with data
    /// (its length, 1, and its key are known at once); the value follows.
    fn variant_key(&mut self, variant: &'static str) -> Result<(), Error> {
        let id = self.field_id(variant)?;
        let shape = shape(&mut self.shapes, &[id]);
        self.ops.extend([OBJECT, 1, shape, id]);
        Ok(())
    }

    /// Opens `{variant: …}` holding an array or object.
    fn variant(&mut self, variant: &'static str, tag: u32) -> Result<Compound<'_>, Error> {
        self.variant_key(variant)?;
        Ok(self.open(tag))
    }

    /// The string id of a struct's field name, in camelCase.
    fn field_id(&mut self, name: &'static str) -> Result<u32, Error> {
        if let Some(id) = self.recent_fields.get(name) {
            return Ok(id);
        }
        let address = (name.as_ptr() as usize, name.len());
        let id = match self.fields.get(&address) {
            Some(&id) => id,
            None => {
                let id = self.intern(&case::camel(name))?;
                self.fields.insert(address, id);
                id
            }
        };
        self.recent_fields.put(name, id);
        Ok(id)
    }

    /// Writes a unit variant's name (a value: not renamed).
    fn variant_name(&mut self, name: &'static str) -> Result<(), Error> {
        let id = match self.recent_variants.get(name) {
            Some(id) => id,
            None => {
                let id = self.intern(name)?;
                self.recent_variants.put(name, id);
                id
            }
        };
        self.ops.extend([STRING, id]);
        Ok(())
    }

    /// Writes a key of the innermost open object.
    fn key(&mut self, id: u32) {
        self.ops.push(id);
        self.keys.push(id);
    }
}

/// Ids of `&'static str`s by address and length, one per slot: a look-up is a multiply and a
/// compare, where the map's is a hash of two words and a probe.
struct StaticIds([(usize, usize, u32); STATIC_SLOTS]);

const STATIC_SLOTS: usize = 64;

impl Default for StaticIds {
    fn default() -> Self {
        StaticIds([(0, 0, NONE); STATIC_SLOTS])
    }
}

impl StaticIds {
    fn slot(text: &'static str) -> usize {
        let address = text.as_ptr() as usize as u64;
        (address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize
    }

    fn get(&self, text: &'static str) -> Option<u32> {
        let (address, len, id) = self.0[Self::slot(text)];
        (address == text.as_ptr() as usize && len == text.len() && id != NONE).then_some(id)
    }

    fn put(&mut self, text: &'static str, id: u32) {
        self.0[Self::slot(text)] = (text.as_ptr() as usize, text.len(), id);
    }
}

/// The number of the shape with these keys in `shapes`, numbered from 0 as they are first met.
fn shape(shapes: &mut HashMap<Box<[u32]>, u32, Mixed>, keys: &[u32]) -> u32 {
    if let Some(&shape) = shapes.get(keys) {
        return shape;
    }
    let shape = shapes.len() as u32;
    shapes.insert(keys.into(), shape);
    shape
}

/// A hash of `bytes` eight at a time (FxHash's step): strings are compared when hashes are
/// equal, so it needs to be quick more than strong.
fn words_hash(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut hash = bytes.len() as u64;
    for word in &mut words {
        hash = fx_step(
            hash,
            u64::from_le_bytes(word.try_into().unwrap_or_default()),
        );
    }
    let mut last = [0; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    fx_step(hash, u64::from_le_bytes(last))
}

/// FxHash's step: `word` mixed into `hash`.
fn fx_step(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// The hash [`Encoded::intern`] files a string under: [`words_hash`] of all of it up to 40 bytes,
/// else of its first 32 and last 8 bytes and its length. Strings that differ only between those
/// share a hash and are told apart by comparing them; what it saves is hashing every byte of the
/// long texts a result repeats (a 280-byte warning on each of 100,000 choices).
fn intern_hash(bytes: &[u8]) -> u64 {
    if bytes.len() <= 40 {
        return words_hash(bytes);
    }
    let mut sample = [0; 48];
    sample[..32].copy_from_slice(&bytes[..32]);
    sample[32..40].copy_from_slice(&bytes[bytes.len() - 8..]);
    sample[40..].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
    words_hash(&sample)
}

/// `a == b`, eight bytes at a time (WebAssembly's `memcmp` goes a byte at a time).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or_default());
    a.len() == b.len()
        && a.chunks_exact(8)
            .zip(b.chunks_exact(8))
            .all(|(x, y)| word(x) == word(y))
        && a.chunks_exact(8).remainder() == b.chunks_exact(8).remainder()
}

/// A hasher for keys that are hashes or addresses already: it multiplies them once.
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = words_hash(bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = fx_step(self.0, n);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        // A product's low bits depend on its factors' low bits only, and the table indexes by
        // them: the well-mixed high bits are moved there (as rustc-hash does).
        self.0.rotate_left(26)
    }
}

type Mixed = BuildHasherDefault<Mix>;

/// An open array or object: counts its items and writes the count when it ends (an object also
/// its shape, from the keys it pushed since `keys_from`).
pub struct Compound<'a> {
    out: &'a mut Encoded,
    at: usize,
    count: u32,
    object: bool,
    keys_from: usize,
}

impl Compound<'_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.count += 1;
        value.serialize(&mut *self.out)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let id = self.out.field_id(key)?;
        self.out.key(id);
        self.item(value)
    }

    fn close(self) -> Result<(), Error> {
        let out = self.out;
        out.ops[self.at] = self.count;
        if self.object {
            out.ops[self.at + 1] = shape(&mut out.shapes, &out.keys[self.keys_from..]);
            out.keys.truncate(self.keys_from);
        }
        Ok(())
    }
}

/// A map key as serde_json writes it: a string, or a number or boolean as its text; renamed like
/// every key.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    match serde_json::to_value(key)? {
        serde_json::Value::String(s) => Ok(case::camel(&s)),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        serde_json::Value::Bool(b) => Ok(b.to_string()),
        _ => Err(Error::custom("key must be a string")),
    }
}

macro_rules! numbers {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<(), Error> {
            self.number(v as f64);
            Ok(())
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Encoded {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128, serialize_f64: f64);

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // serde_json writes an f32 as its shortest decimal, which JavaScript reads as the nearest
        // f64 to that decimal (0.1, not 0.10000000149011612).
        self.number(v.to_string().parse().unwrap_or(f64::NAN));
        Ok(())
    }

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.ops.push(if v { TRUE } else { FALSE });
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.string(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.ops.extend([ARRAY, v.len() as u32]);
        v.iter().for_each(|&b| self.number(f64::from(b)));
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.ops.push(NULL);
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.variant_name(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant_key(variant)?;
        value.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(ARRAY))
    }

    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open(ARRAY))
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open(ARRAY))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        self.variant(variant, ARRAY)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Error> {
        Ok(self.open(OBJECT))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Error> {
        Ok(self.open(OBJECT))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Error> {
        self.variant(variant, OBJECT)
    }
}

/// The compound serializers of arrays (items) and objects (fields, map entries).
macro_rules! compound {
    ($($trait:ident: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.item(value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

compound!(SerializeSeq: serialize_element, SerializeTuple: serialize_element,
    SerializeTupleStruct: serialize_field, SerializeTupleVariant: serialize_field);

macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let id = self.out.intern(&key_text(key)?)?;
        self.out.key(id);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }

    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

#[cfg(test)]
#[path = "transfer_tests.rs"]
mod tests;
