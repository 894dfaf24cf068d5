//! The int8 weights we ship (issue 46, item 6): a safetensors file whose matrices are
//! int8 with a float32 scale per row, read back into float32 at load.
//!
//! `benches/quantize_embedder.py` writes it. Every two-dimensional weight `NAME` is
//! stored as `NAME` (I8, `[rows, cols]`) and `NAME.scale` (F32, `[rows]`); the value
//! of row `r`, column `c` is `NAME[r, c] * NAME.scale[r]`. Other tensors are F32. The
//! header's metadata says what the file is: `format` = [`FORMAT`], `version` =
//! [`VERSION`], and `checksum`, the xxh3-64 (16 hex digits) of every tensor's name
//! and bytes in name order (each prefixed by its length, as 8 little-endian bytes).
//!
//! The reader is checked like our other model files: the safetensors crate refuses a
//! header whose offsets do not fit the bytes (a truncated file), and this reader
//! refuses another version, a checksum that differs (an altered file), an int8 matrix
//! without its scale or the other way round, a scale of the wrong shape, any value
//! that is not finite, and any other dtype. It never panics on what it reads.

use std::collections::HashMap;

use candle_core::{Device, Tensor};
use safetensors::{Dtype, SafeTensors};

/// The `format` of the metadata that marks our int8 files.
pub const FORMAT: &str = "deepdiscovery-int8";
/// The version of that format this reader reads.
pub const VERSION: &str = "1";
/// The suffix of a matrix's scales.
const SCALE: &str = ".scale";

/// Whether a weights file says it is in our int8 format (its metadata's `format`).
/// A file that does not parse is not; the float reader then says why.
pub fn is_quantized(weights: &[u8]) -> bool {
    SafeTensors::read_metadata(weights).is_ok_and(|(_, meta)| {
        meta.metadata()
            .as_ref()
            .and_then(|m| m.get("format"))
            .is_some_and(|f| f == FORMAT)
    })
}

/// The checksum the metadata must carry: xxh3-64 over every tensor's name and bytes
/// in name order, each prefixed by its length.
pub fn checksum(tensors: &SafeTensors<'_>) -> String {
    let views = tensors.tensors();
    checksum_of(
        views
            .iter()
            .map(|(name, view)| (name.as_str(), view.data())),
    )
}

/// [`checksum`] of (name, bytes) pairs in any order.
fn checksum_of<'a>(parts: impl Iterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut parts: Vec<_> = parts.collect();
    parts.sort_by(|a, b| a.0.cmp(b.0));
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for (name, data) in parts {
        hasher.update(&(name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(&(data.len() as u64).to_le_bytes());
        hasher.update(data);
    }
    format!("{:016x}", hasher.digest())
}

/// Reads an int8 weights file into float32 tensors by name, ready for a
/// `VarBuilder`. `Err` says what is wrong with the file.
pub fn dequantize(weights: &[u8]) -> std::result::Result<HashMap<String, Tensor>, String> {
    let (_, meta) = SafeTensors::read_metadata(weights).map_err(|e| e.to_string())?;
    let metadata = meta.metadata().clone().unwrap_or_default();
    let field = |key: &str| metadata.get(key).map(String::as_str);
    if field("format") != Some(FORMAT) {
        return Err(format!("not a {FORMAT} file"));
    }
    if field("version") != Some(VERSION) {
        return Err(format!(
            "{FORMAT} version {:?}; this reader reads version {VERSION}",
            field("version").unwrap_or("(none)")
        ));
    }
    let tensors = SafeTensors::deserialize(weights).map_err(|e| e.to_string())?;
    let expected = checksum(&tensors);
    if field("checksum") != Some(expected.as_str()) {
        return Err(format!(
            "checksum {:?} does not match the tensors ({expected}): the file was altered",
            field("checksum").unwrap_or("(none)")
        ));
    }
    let mut out = HashMap::new();
    for (name, view) in tensors.iter() {
        let shape = view.shape();
        match view.dtype() {
            Dtype::F32 if name.ends_with(SCALE) => {
                let matrix = &name[..name.len() - SCALE.len()];
                match tensors.tensor(matrix) {
                    Ok(m) if m.dtype() == Dtype::I8 => {}
                    _ => return Err(format!("{name}: a scale without its int8 matrix {matrix}")),
                }
            }
            Dtype::F32 => {
                let values = floats(view.data());
                if !values.iter().all(|x| x.is_finite()) {
                    return Err(format!("the weights of {name} are not all finite"));
                }
                out.insert(name.to_string(), tensor(values, shape, name)?);
            }
            Dtype::I8 => {
                let [rows, cols] = *shape else {
                    return Err(format!(
                        "{name}: an int8 tensor of shape {shape:?}, not a matrix"
                    ));
                };
                let scale_name = format!("{name}{SCALE}");
                let scale = tensors
                    .tensor(&scale_name)
                    .map_err(|_| format!("{name}: an int8 matrix without {scale_name}"))?;
                if scale.dtype() != Dtype::F32 || scale.shape() != [rows] {
                    return Err(format!(
                        "{scale_name}: {:?} of shape {:?}, not F32 of shape [{rows}]",
                        scale.dtype(),
                        scale.shape()
                    ));
                }
                let scales = floats(scale.data());
                if !scales.iter().all(|x| x.is_finite()) {
                    return Err(format!("the scales of {name} are not all finite"));
                }
                let values: Vec<f32> = view
                    .data()
                    .chunks(cols.max(1))
                    .zip(&scales)
                    .flat_map(|(row, s)| row.iter().map(move |&q| f32::from(q as i8) * s))
                    .collect();
                out.insert(name.to_string(), tensor(values, shape, name)?);
            }
            other => return Err(format!("{name}: dtype {other:?}, not F32 or I8")),
        }
    }
    Ok(out)
}

/// Little-endian float32 values.
fn floats(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// A float32 tensor of `shape` on the CPU.
fn tensor(values: Vec<f32>, shape: &[usize], name: &str) -> std::result::Result<Tensor, String> {
    Tensor::from_vec(values, shape, &Device::Cpu).map_err(|e| format!("{name}: {e}"))
}

/// Writes float32 safetensors weights in our int8 format, as
/// `benches/quantize_embedder.py` does (its twin, for the tests' tiny models and the
/// fuzz seeds): every float32 matrix becomes int8 with a scale per row, other float32
/// tensors stay, integer buffers are left out. `Err` for weights that do not parse or
/// hold another float type.
pub fn quantize(weights: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let tensors = SafeTensors::deserialize(weights).map_err(|e| e.to_string())?;
    let mut out: Vec<(String, Vec<usize>, Dtype, Vec<u8>)> = Vec::new();
    for (name, view) in tensors.iter() {
        let shape = view.shape().to_vec();
        match (view.dtype(), shape.as_slice()) {
            (Dtype::F32, [rows, cols]) => {
                let values = floats(view.data());
                let mut q = Vec::with_capacity(values.len());
                let mut scales = Vec::with_capacity(*rows);
                for row in values.chunks((*cols).max(1)) {
                    let top = row.iter().fold(0f32, |m, x| m.max(x.abs()));
                    let scale = if top > 0.0 { top / 127.0 } else { 1.0 };
                    q.extend(
                        row.iter()
                            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
                    );
                    scales.extend(scale.to_le_bytes());
                }
                out.push((name.to_string(), shape.clone(), Dtype::I8, q));
                out.push((format!("{name}{SCALE}"), vec![*rows], Dtype::F32, scales));
            }
            (Dtype::F32, _) => {
                out.push((name.to_string(), shape, Dtype::F32, view.data().to_vec()))
            }
            (Dtype::I64 | Dtype::I32, _) => {}
            (other, _) => return Err(format!("{name}: dtype {other:?}, not F32")),
        }
    }
    let views = out
        .iter()
        .map(|(name, shape, dtype, data)| {
            safetensors::tensor::TensorView::new(*dtype, shape.clone(), data)
                .map(|v| (name.clone(), v))
                .map_err(|e| e.to_string())
        })
        .collect::<std::result::Result<Vec<_>, String>>()?;
    let sum = checksum_of(
        out.iter()
            .map(|(name, _, _, data)| (name.as_str(), data.as_slice())),
    );
    let metadata = HashMap::from([
        ("format".to_string(), FORMAT.to_string()),
        ("version".to_string(), VERSION.to_string()),
        ("checksum".to_string(), sum),
    ]);
    safetensors::serialize(views, Some(metadata)).map_err(|e| e.to_string())
}
