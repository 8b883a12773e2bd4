//! The VHLO dialect (StableHLO's versioned form, what portable artifacts and
//! `jax.export` carry): its bytecode encodings of attributes and types
//! (`stablehlo/dialect/VhloBytecode.cpp`), the attribute names of each op
//! (`VhloOps.td`, the order its properties are written in), and the way back
//! to StableHLO: each `vhlo.<op>_v<N>` becomes `stablehlo.<op>` with the
//! attributes StableHLO's text has (dimension-number structs regrouped,
//! defaults VHLO spells out dropped, as `VhloLegalizeToStablehlo.cpp`
//! does), printed as MLIR text that [`super::syntax`] reads. So the text
//! reader stays the one home of the syntax tree and [`super::lower`] the
//! one home of the mapping to HLO.

use super::bytecode::{
    int_bits, At, BResult, Block, Bytecode, BytecodeError, Cur, Op, Props, Reader, Ty,
};
use std::fmt::Write;

// ---- Decoding (called by the bytecode reader for `vhlo` entries) ----

pub(crate) fn read_type<'a>(r: &Reader<'a>, c: &mut Cur<'a>) -> BResult<Ty> {
    let code = c.varint()?;
    let int = |bits, signed| Ty::Int { bits, signed };
    Ok(match code {
        0 => Ty::Bool,
        1 => Ty::Complex(r.r_type(c)?),
        2 => Ty::Float("bf16", 16),
        3 => Ty::Float("f16", 16),
        4 => Ty::Float("f32", 32),
        5 => Ty::Float("f64", 64),
        6 => Ty::Float("f8E4M3FN", 8),
        7 => Ty::Float("f8E5M2", 8),
        8 => Ty::Function(r.r_types(c)?, r.r_types(c)?),
        9 => Ty::Index,
        10 => int(4, None),
        11 => int(8, None),
        12 => int(16, None),
        13 => int(32, None),
        14 => int(64, None),
        15 => int(4, Some(false)),
        16 => int(8, Some(false)),
        17 => int(16, Some(false)),
        18 => int(32, Some(false)),
        19 => int(64, Some(false)),
        20 | 21 => {
            let encoding = if code == 21 { Some(r.r_attr(c)?) } else { None };
            let shape = r.r_svarints(c)?;
            Ty::Tensor {
                shape,
                elem: r.r_type(c)?,
                encoding,
            }
        }
        22 => Ty::Token,
        23 => Ty::Tuple(r.r_types(c)?),
        25 => Ty::Unranked(r.r_type(c)?),
        27 => Ty::Float("f8E4M3FNUZ", 8),
        28 => Ty::Float("f8E5M2FNUZ", 8),
        29 => Ty::Float("f8E4M3B11FNUZ", 8),
        31 => int(2, None),
        32 => int(2, Some(false)),
        33 => Ty::None,
        34 => Ty::Float("tf32", 19),
        35 => Ty::Float("f8E4M3", 8),
        36 => Ty::Float("f8E3M4", 8),
        37 => Ty::Float("f4E2M1FN", 4),
        38 => Ty::Float("f6E2M3FN", 6),
        39 => Ty::Float("f6E3M2FN", 6),
        40 => Ty::Float("f8E8M0FNU", 8),
        24 | 30 => Ty::Other("a quantized type".into()),
        n => Ty::Other(format!("VHLO type code {n}")),
    })
}

pub(crate) fn read_attr<'a>(r: &Reader<'a>, c: &mut Cur<'a>, types: &[Ty]) -> BResult<At> {
    let code = c.varint()?;
    let en = |c: &mut Cur<'a>, kind| -> BResult<At> { Ok(At::Enum(kind, c.varint()?)) };
    Ok(match code {
        1 => At::Array(r.r_attrs(c)?),
        2 => match c.varint()? {
            0 => At::Bool(false),
            1 => At::Bool(true),
            v => return c.err(format!("boolean value {v}")),
        },
        3 => en(c, "comparison_direction")?,
        4 => en(c, "comparison_type")?,
        5 => en(c, "api_version")?,
        6 => {
            let n = c.count("named attributes")?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push((r.r_attr(c)?, r.r_attr(c)?));
            }
            At::Dict(v)
        }
        7 => en(c, "fft_type")?,
        8 => {
            let ty = r.r_type(c)?;
            let Some(Ty::Float(_, bits)) = types.get(ty) else {
                return c.err("a float attribute of a non-float type");
            };
            At::Float {
                ty,
                bits: r.r_apint(c, *bits)? as u64,
            }
        }
        9 => {
            let ty = r.r_type(c)?;
            let Some(bits) = int_bits(types, ty) else {
                return c.err("an integer attribute of a non-integer type");
            };
            At::Int {
                ty,
                bits,
                value: r.r_apint(c, bits)?,
            }
        }
        10 => At::OutputOperandAlias {
            output_tuple_indices: r.r_svarints(c)?,
            operand_index: c.svarint()?,
            operand_tuple_indices: r.r_svarints(c)?,
        },
        11 => en(c, "precision")?,
        12 => en(c, "rng_algorithm")?,
        13 => en(c, "rng_distribution")?,
        14 => At::Str(r.r_string(c)?.to_vec()),
        15 => {
            let ty = r.r_type(c)?;
            let blob = r.r_blob(c)?;
            At::Dense {
                ty,
                data: unpack_bools(types, ty, blob),
            }
        }
        16 => en(c, "transpose")?,
        17 => At::Type(r.r_type(c)?),
        18 => At::TypeExtensions(r.r_svarints(c)?),
        19 => en(c, "result_accuracy_mode")?,
        20 => {
            r.r_apint(c, 64)?;
            r.r_apint(c, 64)?;
            c.svarint()?;
            r.r_attr(c)?;
            At::Other("a result accuracy".into())
        }
        n => At::Other(format!("VHLO attribute code {n}")),
    })
}

/// i1 tensors are written packed, eight elements a byte (`0xFF` alone is a
/// true splat); hlox's dense data has one byte per element.
fn unpack_bools(types: &[Ty], ty: usize, blob: Vec<u8>) -> Vec<u8> {
    let Some(Ty::Tensor { shape, elem, .. }) = types.get(ty) else {
        return blob;
    };
    if types.get(*elem) != Some(&Ty::Bool) {
        return blob;
    }
    let Some(n) = num_elements(shape) else {
        return blob;
    };
    if blob.len() == 1 && blob[0] == 0xFF {
        return vec![1];
    }
    if blob.len() as u64 == n.div_ceil(8) && blob.len() as u64 != n {
        return (0..n as usize)
            .map(|i| (blob[i / 8] >> (i % 8)) & 1)
            .collect();
    }
    blob
}

fn num_elements(shape: &[i64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |a, &d| {
        u64::try_from(d).ok().and_then(|d| a.checked_mul(d))
    })
}

/// `convolution_v1`'s and `dynamic_conv_v1`'s attributes.
#[rustfmt::skip]
const CONVOLUTION: &[&str] = &[
    "window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal",
    "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
    "kernel_input_feature_dimension", "kernel_output_feature_dimension",
    "kernel_spatial_dimensions", "output_batch_dimension", "output_feature_dimension",
    "output_spatial_dimensions", "feature_group_count", "batch_group_count", "precision_config",
];

/// The attribute names of each VHLO op (its properties, written sorted by
/// name), from `VhloOps.td`. One op per line, as XLA's `hlo_opcode.h`.
#[rustfmt::skip]
const OPS: &[(&str, &[&str])] = &[
    ("abs_v1", &[]),
    ("add_v1", &[]),
    ("after_all_v1", &[]),
    ("all_gather_v1", &["all_gather_dim", "replica_groups", "channel_id", "use_global_device_ids"]),
    ("all_gather_v2", &["all_gather_dim", "replica_groups", "channel_id", "use_global_device_ids"]),
    ("all_reduce_v1", &["replica_groups", "channel_id", "use_global_device_ids"]),
    ("all_reduce_v2", &["replica_groups", "channel_id", "use_global_device_ids"]),
    ("all_to_all_v1", &["split_dimension", "concat_dimension", "split_count", "replica_groups", "channel_id"]),
    ("all_to_all_v2", &["split_dimension", "concat_dimension", "split_count", "replica_groups", "channel_id"]),
    ("and_v1", &[]),
    ("async_start_v1", &[]),
    ("async_done_v1", &[]),
    ("atan2_v1", &[]),
    ("batch_norm_grad_v1", &["epsilon", "feature_index"]),
    ("batch_norm_inference_v1", &["epsilon", "feature_index"]),
    ("batch_norm_training_v1", &["epsilon", "feature_index"]),
    ("bitcast_convert_v1", &[]),
    ("broadcast_in_dim_v1", &["broadcast_dimensions"]),
    ("broadcast_v1", &["broadcast_sizes"]),
    ("call_v1", &["callee"]),
    ("case_v1", &[]),
    ("cbrt_v1", &[]),
    ("cbrt_v2", &["result_accuracy"]),
    ("ceil_v1", &[]),
    ("cholesky_v1", &["lower"]),
    ("clamp_v1", &[]),
    ("count_leading_zeros_v1", &[]),
    ("collective_broadcast_v1", &["replica_groups", "channel_id"]),
    ("collective_broadcast_v2", &["replica_groups", "channel_id", "has_dynamic_root"]),
    ("collective_reduce_v1", &["replica_groups", "channel_id", "use_global_device_ids", "has_dynamic_root"]),
    ("collective_permute_v1", &["source_target_pairs", "channel_id"]),
    ("compare_v1", &["comparison_direction", "compare_type"]),
    ("complex_v1", &[]),
    ("composite_v1", &["name", "composite_attributes", "decomposition", "version"]),
    ("composite_v2", &["name", "composite_attributes", "decomposition", "version"]),
    ("concatenate_v1", &["dimension"]),
    ("constant_v1", &["value"]),
    ("convert_v1", &[]),
    ("convolution_v1", CONVOLUTION),
    ("cosine_v1", &[]),
    ("cosine_v2", &["result_accuracy"]),
    ("create_token_v1", &[]),
    ("cross-replica-sum_v1", &["replica_groups"]),
    ("custom_call_v1", &["call_target_name", "has_side_effect", "backend_config", "api_version", "called_computations", "operand_layouts", "result_layouts", "output_operand_aliases"]),
    ("custom_call_v2", &["call_target_name", "has_side_effect", "backend_config", "api_version", "called_computations", "operand_layouts", "result_layouts", "output_operand_aliases", "result_tilings"]),
    ("divide_v1", &[]),
    ("dot_general_v1", &["lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions", "precision_config"]),
    ("dot_general_v2", &["lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions", "precision_config", "lhs_precision_type", "rhs_precision_type", "accumulation_type", "lhs_component_count", "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"]),
    ("dot_v1", &["precision_config"]),
    ("dynamic_broadcast_in_dim_v1", &["broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"]),
    ("dynamic_conv_v1", CONVOLUTION),
    ("dynamic_conv_v2", &["window_strides", "lhs_dilation", "rhs_dilation", "window_reversal", "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions", "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions", "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions", "feature_group_count", "batch_group_count", "precision_config"]),
    ("dynamic_gather_v1", &["offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim", "indices_are_sorted"]),
    ("dynamic_gather_v2", &["offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map", "index_vector_dim", "indices_are_sorted"]),
    ("dynamic_iota_v1", &["iota_dimension"]),
    ("dynamic_pad_v1", &[]),
    ("dynamic_reshape_v1", &[]),
    ("dynamic_slice_v1", &["slice_sizes"]),
    ("dynamic_update_slice_v1", &[]),
    ("einsum_v1", &["einsum_config"]),
    ("exponential_minus_one_v1", &[]),
    ("exponential_minus_one_v2", &["result_accuracy"]),
    ("exponential_v1", &[]),
    ("exponential_v2", &["result_accuracy"]),
    ("fft_v1", &["fft_type", "fft_length"]),
    ("floor_v1", &[]),
    ("func_v1", &["sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"]),
    ("gather_v1", &["offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim", "slice_sizes", "indices_are_sorted"]),
    ("gather_v2", &["offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map", "index_vector_dim", "slice_sizes", "indices_are_sorted"]),
    ("get_dimension_size_v1", &["dimension"]),
    ("get_tuple_element_v1", &["index"]),
    ("if_v1", &[]),
    ("imag_v1", &[]),
    ("infeed_v1", &["infeed_config", "layout"]),
    ("iota_v1", &["iota_dimension"]),
    ("is_finite_v1", &[]),
    ("log_plus_one_v1", &[]),
    ("log_plus_one_v2", &["result_accuracy"]),
    ("logistic_v1", &[]),
    ("logistic_v2", &["result_accuracy"]),
    ("log_v1", &[]),
    ("log_v2", &["result_accuracy"]),
    ("map_v1", &["dimensions"]),
    ("maximum_v1", &[]),
    ("minimum_v1", &[]),
    ("multiply_v1", &[]),
    ("negate_v1", &[]),
    ("not_v1", &[]),
    ("optimization_barrier_v1", &[]),
    ("or_v1", &[]),
    ("outfeed_v1", &["outfeed_config"]),
    ("pad_v1", &["edge_padding_low", "edge_padding_high", "interior_padding"]),
    ("partition_id_v1", &[]),
    ("popcnt_v1", &[]),
    ("power_v1", &[]),
    ("real_dynamic_slice_v1", &[]),
    ("real_v1", &[]),
    ("recv_v1", &["channel_id", "channel_type", "is_host_transfer"]),
    ("recv_v2", &["channel_id", "channel_type", "is_host_transfer", "source_target_pairs"]),
    ("reduce_v1", &["dimensions"]),
    ("reduce_precision_v1", &["exponent_bits", "mantissa_bits"]),
    ("reduce_scatter_v1", &["scatter_dimension", "replica_groups", "channel_id", "use_global_device_ids"]),
    ("reduce_window_v1", &["window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding"]),
    ("remainder_v1", &[]),
    ("replica_id_v1", &[]),
    ("reshape_v1", &[]),
    ("return_v1", &[]),
    ("reverse_v1", &["dimensions"]),
    ("rng_bit_generator_v1", &["rng_algorithm"]),
    ("rng_v1", &["rng_distribution"]),
    ("round_nearest_even_v1", &[]),
    ("round_nearest_afz_v1", &[]),
    ("rsqrt_v1", &[]),
    ("rsqrt_v2", &["result_accuracy"]),
    ("scatter_v1", &["update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims", "index_vector_dim", "indices_are_sorted", "unique_indices"]),
    ("scatter_v2", &["update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim", "indices_are_sorted", "unique_indices"]),
    ("select_and_scatter_v1", &["window_dimensions", "window_strides", "padding"]),
    ("select_v1", &[]),
    ("send_v1", &["channel_id", "channel_type", "is_host_transfer"]),
    ("send_v2", &["channel_id", "channel_type", "is_host_transfer", "source_target_pairs"]),
    ("set_dimension_size_v1", &["dimension"]),
    ("shift_left_v1", &[]),
    ("shift_right_arithmetic_v1", &[]),
    ("shift_right_logical_v1", &[]),
    ("sign_v1", &[]),
    ("sine_v1", &[]),
    ("sine_v2", &["result_accuracy"]),
    ("slice_v1", &["start_indices", "limit_indices", "strides"]),
    ("sort_v1", &["dimension", "is_stable"]),
    ("sqrt_v1", &[]),
    ("sqrt_v2", &["result_accuracy"]),
    ("subtract_v1", &[]),
    ("tan_v1", &[]),
    ("tan_v2", &["result_accuracy"]),
    ("tanh_v1", &[]),
    ("tanh_v2", &["result_accuracy"]),
    ("torch_index_select_v1", &["dim", "batch_dims"]),
    ("transpose_v1", &["permutation"]),
    ("triangular_solve_v1", &["left_side", "lower", "unit_diagonal", "transpose_a"]),
    ("tuple_v1", &[]),
    ("unary_einsum_v1", &["einsum_config"]),
    ("uniform_dequantize_v1", &[]),
    ("uniform_quantize_v1", &[]),
    ("while_v1", &[]),
    ("xor_v1", &[]),
];

/// How much text the decoded module may take beyond 4 characters per byte
/// of bytecode (attributes are shared by index, so a crafted file could
/// otherwise expand without bound).
const MAX_TEXT: usize = 64 << 20;

/// Prints a VHLO module (a read portable artifact) as StableHLO MLIR text.
pub(crate) fn to_stablehlo_text(bc: &Bytecode) -> BResult<String> {
    let mut p = Printer {
        bc,
        out: String::new(),
        names: vec![String::new(); bc.num_values as usize],
        value_types: vec![usize::MAX; bc.num_values as usize],
        steps: std::cell::Cell::new(0),
        charged: std::cell::Cell::new(0),
    };
    let module = match bc.ops.as_slice() {
        [m] if m.name == "builtin.module" => m,
        [m] => {
            return p.fail(
                m,
                format!(
                    "the top-level operation is '{}', not 'builtin.module'",
                    m.name
                ),
            )
        }
        _ => {
            return Err(BytecodeError {
                offset: 0,
                section: "IR section",
                message: format!(
                    "expected one top-level 'builtin.module', found {} operations",
                    bc.ops.len()
                ),
            })
        }
    };
    let name = p.module_name(module)?;
    match &name {
        Some(n) => writeln!(p.out, "module @{} {{", symbol(n)),
        None => writeln!(p.out, "module {{"),
    }
    .ok();
    let block = p.single_block(module, 0)?;
    for f in &block.ops {
        if f.name != "vhlo.func_v1" {
            return p.fail(
                f,
                format!(
                    "'{}' at the top level of the module (only functions are read)",
                    f.name
                ),
            );
        }
        p.func(f)?;
    }
    p.out.push_str("}\n");
    Ok(p.out)
}

struct Printer<'b> {
    bc: &'b Bytecode,
    out: String,
    /// The name of each value as printed (`%v3`, `%v5#1`).
    names: Vec<String>,
    value_types: Vec<usize>,
    /// Attributes and types visited while printing: shared entries could
    /// otherwise expand exponentially.
    steps: std::cell::Cell<usize>,
    /// Bytes of element data printed so far (bounded like the text).
    charged: std::cell::Cell<usize>,
}

/// How many attribute and type nodes may be printed in all.
const MAX_STEPS: usize = 1 << 24;

fn symbol(name: &[u8]) -> String {
    if !name.is_empty()
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'))
        && !name[0].is_ascii_digit()
    {
        String::from_utf8_lossy(name).into_owned()
    } else {
        quote(name)
    }
}

fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &c in s {
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(c as char),
            _ => {
                let _ = write!(out, "\\{c:02X}");
            }
        }
    }
    out.push('"');
    out
}

impl<'b> Printer<'b> {
    fn fail<T>(&self, op: &Op, message: impl Into<String>) -> BResult<T> {
        Err(BytecodeError {
            offset: op.offset,
            section: "IR section",
            message: message.into(),
        })
    }

    fn attr(&self, i: usize) -> &'b At {
        &self.bc.attrs[i]
    }

    fn str_of(&self, op: &Op, i: usize) -> BResult<&'b [u8]> {
        match self.attr(i) {
            At::Str(s) => Ok(s),
            a => self.fail(
                op,
                format!("expected a string attribute, found {}", kind(a)),
            ),
        }
    }

    /// The op's attributes by name: its properties (named by [`OPS`] for
    /// VHLO ops) and its discardable dictionary.
    fn attrs(&self, op: &Op) -> BResult<Vec<(String, usize)>> {
        let mut out = Vec::new();
        match &op.props {
            None => {}
            Some(Props::Attr(a)) => self.dict_into(op, *a, &mut out)?,
            Some(Props::Raw(data, at)) => {
                let base = op.name.strip_prefix("vhlo.").unwrap_or(&op.name);
                let Some((_, names)) = OPS.iter().find(|(n, _)| *n == base) else {
                    return self.fail(
                        op,
                        format!("unknown operation '{}' with properties", op.name),
                    );
                };
                // ODS writes properties in the order of their names.
                let mut sorted: Vec<&str> = names.to_vec();
                sorted.sort_unstable();
                let mut c = Cur::over(data, *at, "properties section");
                for n in sorted {
                    let i = c.index(self.bc.attrs.len(), "attribute")?;
                    out.push((n.to_string(), i));
                }
                if !c.is_empty() {
                    return c.err(format!("more properties than '{}' has attributes", op.name));
                }
            }
        }
        if let Some(d) = op.attrs {
            self.dict_into(op, d, &mut out)?;
        }
        Ok(out)
    }

    fn dict_into(&self, op: &Op, d: usize, out: &mut Vec<(String, usize)>) -> BResult<()> {
        match self.attr(d) {
            At::Dict(v) => {
                for &(k, a) in v {
                    let k = String::from_utf8_lossy(self.str_of(op, k)?).into_owned();
                    out.push((k, a));
                }
                Ok(())
            }
            a => self.fail(
                op,
                format!("expected an attribute dictionary, found {}", kind(a)),
            ),
        }
    }

    fn module_name(&self, m: &Op) -> BResult<Option<Vec<u8>>> {
        if let Some(Props::Raw(data, at)) = &m.props {
            // builtin.module: optional sym_name, optional sym_visibility.
            let mut c = Cur::over(data, *at, "properties section");
            let (i, present) = c.varint_flag()?;
            if present {
                if i >= self.bc.attrs.len() as u64 {
                    return c.err(format!("attribute index {i} is out of range"));
                }
                return Ok(Some(self.str_of(m, i as usize)?.to_vec()));
            }
            return Ok(None);
        }
        for (k, a) in self.attrs(m)? {
            if k == "sym_name" {
                return Ok(Some(self.str_of(m, a)?.to_vec()));
            }
        }
        Ok(None)
    }

    fn single_block(&self, op: &'b Op, region: usize) -> BResult<&'b Block> {
        static EMPTY: Block = Block {
            args: Vec::new(),
            ops: Vec::new(),
        };
        match op.regions.get(region).map(|r| r.blocks.as_slice()) {
            Some([b]) => Ok(b),
            Some([]) | None => Ok(&EMPTY),
            Some(_) => self.fail(op, format!("'{}' has a region of several blocks", op.name)),
        }
    }

    fn name_values(&mut self, ids: &[(u32, usize)], group: bool) -> String {
        let Some(&(first, _)) = ids.first() else {
            return String::new();
        };
        let base = format!("%v{first}");
        for (k, &(id, ty)) in ids.iter().enumerate() {
            if let Some(slot) = self.names.get_mut(id as usize) {
                *slot = if group && ids.len() > 1 {
                    format!("{base}#{k}")
                } else {
                    format!("%v{id}")
                };
            }
            if let Some(slot) = self.value_types.get_mut(id as usize) {
                *slot = ty;
            }
        }
        if ids.len() > 1 && group {
            format!("{base}:{}", ids.len())
        } else {
            base
        }
    }

    fn budget(&self, op: &Op) -> BResult<()> {
        let max = MAX_TEXT.saturating_add(self.bc.len.saturating_mul(4));
        if self.out.len() > max {
            return self.fail(op, format!("the module's text would exceed {max} bytes"));
        }
        Ok(())
    }

    /// Accounts for `n` bytes of printed element data.
    fn charge(&self, op: &Op, n: usize) -> BResult<()> {
        let total = self.charged.get().saturating_add(n);
        self.charged.set(total);
        let max = MAX_TEXT.saturating_add(self.bc.len.saturating_mul(4));
        if total > max {
            return self.fail(
                op,
                format!("the module's constants would print as more than {max} bytes"),
            );
        }
        Ok(())
    }

    fn step(&self, op: &Op) -> BResult<()> {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n > MAX_STEPS {
            return self.fail(
                op,
                format!("more than {MAX_STEPS} attribute and type nodes to print"),
            );
        }
        Ok(())
    }

    fn func(&mut self, f: &Op) -> BResult<()> {
        let attrs = self.attrs(f)?;
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|&(_, a)| a);
        let Some(name) = get("sym_name") else {
            return self.fail(f, "a function without a name");
        };
        let name = symbol(self.str_of(f, name)?);
        let private = match get("sym_visibility") {
            Some(v) => self.str_of(f, v)? == b"private",
            None => false,
        };
        let results = match get("function_type").map(|a| self.attr(a)) {
            Some(At::Type(t)) => match self.bc.types.get(*t) {
                Some(Ty::Function(_, outs)) => outs.clone(),
                _ => return self.fail(f, "function_type is not a function type"),
            },
            _ => return self.fail(f, "a function without a function_type"),
        };
        let block = self.single_block(f, 0)?;
        let mut args = Vec::new();
        for &(id, ty) in &block.args {
            let n = self.name_values(&[(id, ty)], false);
            args.push(format!("{n}: {}", self.ty(f, ty, 0)?));
        }
        let res = results
            .iter()
            .map(|&t| self.ty(f, t, 0))
            .collect::<BResult<Vec<_>>>()?;
        let _ = writeln!(
            self.out,
            "  func.func {}@{name}({}) -> ({}) {{",
            if private { "private " } else { "" },
            args.join(", "),
            res.join(", ")
        );
        for op in &block.ops {
            self.op(op, true, 2)?;
        }
        self.out.push_str("  }\n");
        Ok(())
    }

    fn operand_list(&self, op: &Op) -> BResult<(Vec<String>, Vec<usize>)> {
        let mut names = Vec::new();
        let mut tys = Vec::new();
        for &v in &op.operands {
            match (self.names.get(v as usize), self.value_types.get(v as usize)) {
                (Some(n), Some(&t)) if !n.is_empty() => {
                    names.push(n.clone());
                    tys.push(t);
                }
                _ => {
                    return self.fail(
                        op,
                        format!("'{}' uses a value defined out of order", op.name),
                    )
                }
            }
        }
        Ok((names, tys))
    }

    fn op(&mut self, op: &Op, in_func: bool, depth: usize) -> BResult<()> {
        self.budget(op)?;
        if depth > super::syntax::MAX_DEPTH {
            return self.fail(op, "regions nest too deeply");
        }
        let indent = "  ".repeat(depth);
        let base = match op.name.strip_prefix("vhlo.") {
            Some(b) => b.rsplit_once("_v").map_or(b, |(n, _)| n),
            None => {
                return self.fail(
                    op,
                    format!(
                    "'{}' is not a VHLO operation (hlox reads VHLO-versioned portable artifacts)",
                    op.name
                ),
                )
            }
        };
        let (operands, operand_tys) = self.operand_list(op)?;
        let result_names = self.name_values(&op.results, true);
        let result_tys: Vec<usize> = op.results.iter().map(|r| r.1).collect();
        let sig = format!(
            "({}) -> ({})",
            self.tys(op, &operand_tys)?,
            self.tys(op, &result_tys)?
        );
        let lhs = if result_names.is_empty() {
            String::new()
        } else {
            format!("{result_names} = ")
        };
        let attrs = self.attrs(op)?;
        let (name, attrs_text) = match base {
            "return" => (
                if in_func {
                    "func.return"
                } else {
                    "stablehlo.return"
                }
                .to_string(),
                String::new(),
            ),
            "call" => {
                let callee = attrs.iter().find(|(k, _)| k == "callee");
                let Some(&(_, c)) = callee else {
                    return self.fail(op, "a call without a callee");
                };
                let callee = match self.attr(c) {
                    At::Str(s) => symbol(s),
                    At::Sym(s) => symbol(self.str_of(op, *s)?),
                    a => return self.fail(op, format!("callee is {}", kind(a))),
                };
                ("func.call".to_string(), format!("callee = @{callee}"))
            }
            "convolution" => return self.convolution(op, &indent, &lhs, &operands, &attrs, &sig),
            _ => (
                format!("stablehlo.{base}"),
                self.stablehlo_attrs(op, base, &attrs)?,
            ),
        };
        let _ = write!(self.out, "{indent}{lhs}\"{name}\"({})", operands.join(", "));
        if !attrs_text.is_empty() {
            let _ = write!(self.out, " <{{{attrs_text}}}>");
        }
        if !op.regions.is_empty() {
            self.out.push_str(" (");
            for r in 0..op.regions.len() {
                if r > 0 {
                    self.out.push_str(", ");
                }
                let block = self.single_block(op, r)?;
                self.out.push_str("{\n");
                if !block.args.is_empty() {
                    let mut args = Vec::new();
                    for &(id, ty) in &block.args {
                        let n = self.name_values(&[(id, ty)], false);
                        args.push(format!("{n}: {}", self.ty(op, ty, 0)?));
                    }
                    let _ = writeln!(self.out, "{indent}^bb0({}):", args.join(", "));
                }
                for inner in &block.ops {
                    self.op(inner, false, depth + 1)?;
                }
                let _ = write!(self.out, "{indent}}}");
            }
            self.out.push(')');
        }
        let _ = writeln!(self.out, " : {sig}");
        Ok(())
    }

    fn tys(&self, op: &Op, tys: &[usize]) -> BResult<String> {
        Ok(tys
            .iter()
            .map(|&t| self.ty(op, t, 0))
            .collect::<BResult<Vec<_>>>()?
            .join(", "))
    }

    /// A type as MLIR's builtin/StableHLO text writes it.
    fn ty(&self, op: &Op, t: usize, depth: usize) -> BResult<String> {
        if depth > 32 {
            return self.fail(op, "types nest too deeply");
        }
        self.step(op)?;
        let Some(ty) = self.bc.types.get(t) else {
            return self.fail(op, format!("type index {t} is out of range"));
        };
        let sub = |t: usize| self.ty(op, t, depth + 1);
        Ok(match ty {
            Ty::Bool => "i1".into(),
            Ty::Int { bits, signed } => match signed {
                None => format!("i{bits}"),
                Some(true) => format!("si{bits}"),
                Some(false) => format!("ui{bits}"),
            },
            Ty::Index => "index".into(),
            Ty::Float(n, _) => n.to_string(),
            Ty::Complex(e) => format!("complex<{}>", sub(*e)?),
            Ty::Tensor { shape, elem, .. } => {
                let mut s = String::from("tensor<");
                for d in shape {
                    if *d < 0 {
                        s.push_str("?x");
                    } else {
                        let _ = write!(s, "{d}x");
                    }
                }
                s.push_str(&sub(*elem)?);
                s.push('>');
                s
            }
            Ty::Unranked(e) => format!("tensor<*x{}>", sub(*e)?),
            Ty::Tuple(v) => format!(
                "tuple<{}>",
                v.iter()
                    .map(|&t| sub(t))
                    .collect::<BResult<Vec<_>>>()?
                    .join(", ")
            ),
            Ty::Function(a, b) => format!(
                "({}) -> ({})",
                a.iter()
                    .map(|&t| sub(t))
                    .collect::<BResult<Vec<_>>>()?
                    .join(", "),
                b.iter()
                    .map(|&t| sub(t))
                    .collect::<BResult<Vec<_>>>()?
                    .join(", ")
            ),
            Ty::Token => "!stablehlo.token".into(),
            Ty::None => "none".into(),
            Ty::Asm(s) => s.clone(),
            Ty::Other(what) => {
                return self.fail(
                    op,
                    format!("'{}' uses {what}, which hlox does not read", op.name),
                )
            }
        })
    }

    /// The attributes of `stablehlo.<base>` from those of its VHLO op.
    fn stablehlo_attrs(&self, op: &Op, base: &str, attrs: &[(String, usize)]) -> BResult<String> {
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|&(_, a)| a);
        let mut out: Vec<String> = Vec::new();
        let mut skip: Vec<&str> = vec!["result_accuracy"];
        let group = |names: &[(&str, &str)], fields: &mut Vec<String>| -> BResult<()> {
            for (vhlo, field) in names {
                if let Some(a) = get(vhlo) {
                    let v = self.ints(op, a)?;
                    if *vhlo == "index_vector_dim" {
                        fields.push(format!("{field} = {}", v.first().copied().unwrap_or(0)));
                    } else {
                        fields.push(format!("{field} = [{}]", join(&v)));
                    }
                }
            }
            Ok(())
        };
        match base {
            "dot_general" => {
                let mut f = Vec::new();
                let names = [
                    ("lhs_batching_dimensions", "lhs_batching_dimensions"),
                    ("rhs_batching_dimensions", "rhs_batching_dimensions"),
                    ("lhs_contracting_dimensions", "lhs_contracting_dimensions"),
                    ("rhs_contracting_dimensions", "rhs_contracting_dimensions"),
                ];
                group(&names, &mut f)?;
                out.push(format!(
                    "dot_dimension_numbers = #stablehlo.dot<{}>",
                    f.join(", ")
                ));
                skip.extend(names.iter().map(|n| n.0));
                for k in [
                    "lhs_precision_type",
                    "rhs_precision_type",
                    "accumulation_type",
                    "lhs_component_count",
                    "rhs_component_count",
                    "num_primitive_operations",
                    "allow_imprecise_accumulation",
                ] {
                    if let Some(a) = get(k) {
                        let none = matches!(self.attr(a), At::Type(t) if self.bc.types.get(*t) == Some(&Ty::None));
                        if !none {
                            return self.fail(
                                op,
                                "a dot_general with a dot algorithm, which hlox does not read yet",
                            );
                        }
                    }
                    skip.push(k);
                }
            }
            "gather" | "dynamic_gather" => {
                let mut f = Vec::new();
                let names = [
                    ("offset_dims", "offset_dims"),
                    ("collapsed_slice_dims", "collapsed_slice_dims"),
                    ("operand_batching_dims", "operand_batching_dims"),
                    ("start_indices_batching_dims", "start_indices_batching_dims"),
                    ("start_index_map", "start_index_map"),
                    ("index_vector_dim", "index_vector_dim"),
                ];
                group(&names, &mut f)?;
                out.push(format!(
                    "dimension_numbers = #stablehlo.gather<{}>",
                    f.join(", ")
                ));
                skip.extend(names.iter().map(|n| n.0));
            }
            "scatter" => {
                let mut f = Vec::new();
                let names = [
                    ("update_window_dims", "update_window_dims"),
                    ("inserted_window_dims", "inserted_window_dims"),
                    ("input_batching_dims", "input_batching_dims"),
                    (
                        "scatter_indices_batching_dims",
                        "scatter_indices_batching_dims",
                    ),
                    (
                        "scatter_dims_to_operand_dims",
                        "scatter_dims_to_operand_dims",
                    ),
                    ("index_vector_dim", "index_vector_dim"),
                ];
                group(&names, &mut f)?;
                out.push(format!(
                    "scatter_dimension_numbers = #stablehlo.scatter<{}>",
                    f.join(", ")
                ));
                skip.extend(names.iter().map(|n| n.0));
            }
            _ => {}
        }
        for (k, a) in attrs {
            if skip.contains(&k.as_str()) {
                continue;
            }
            let at = self.attr(*a);
            let empty_array = matches!(at, At::Array(v) if v.is_empty());
            let text = match (base, k.as_str(), at) {
                ("compare", "compare_type", At::Enum(_, 0)) => continue,
                ("custom_call", "api_version", At::Enum(_, v)) => format!("{v} : i32"),
                (
                    "custom_call",
                    "operand_layouts"
                    | "result_layouts"
                    | "called_computations"
                    | "output_operand_aliases"
                    | "result_tilings",
                    _,
                ) if empty_array => continue,
                ("custom_call", "result_tilings", _) => continue,
                ("custom_call", "called_computations", At::Array(v)) => {
                    let mut s = Vec::new();
                    for &e in v {
                        s.push(format!("@{}", symbol(self.str_of(op, e)?)));
                    }
                    format!("[{}]", s.join(", "))
                }
                ("custom_call", "has_side_effect", At::Bool(false)) => continue,
                ("composite", "decomposition", At::Str(s)) => format!("@{}", symbol(s)),
                (_, "channel_id", At::Int { value, .. }) => {
                    if *value == 0 {
                        continue;
                    }
                    out.push(format!(
                        "channel_handle = #stablehlo.channel_handle<handle = {}, type = 0>",
                        *value as u64 as i64
                    ));
                    continue;
                }
                (_, "use_global_device_ids" | "has_dynamic_root", At::Bool(b)) => {
                    if *b {
                        out.push(k.clone());
                    }
                    continue;
                }
                _ => self.attr_text(op, k, *a, 0)?,
            };
            out.push(format!("{} = {text}", symbol(k.as_bytes())));
        }
        Ok(out.join(", "))
    }

    /// `stablehlo.convolution` in its pretty form (the text reader reads
    /// dimension numbers in that form only).
    fn convolution(
        &mut self,
        op: &Op,
        indent: &str,
        lhs: &str,
        operands: &[String],
        attrs: &[(String, usize)],
        sig: &str,
    ) -> BResult<()> {
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|&(_, a)| a);
        let int = |k: &str| -> BResult<i64> {
            match get(k) {
                Some(a) => Ok(self.ints(op, a)?.first().copied().unwrap_or(0)),
                None => self.fail(op, format!("convolution without {k}")),
            }
        };
        let list = |k: &str| -> BResult<Vec<i64>> {
            match get(k) {
                Some(a) => self.ints(op, a),
                None => Ok(Vec::new()),
            }
        };
        let spec = |b: i64, f: i64, sp: &[i64], bl: &str, fl: &str| -> String {
            let rank = sp.len() + 2;
            let v: Vec<String> = (0..rank as i64)
                .map(|d| {
                    if d == b {
                        bl.to_string()
                    } else if d == f {
                        fl.to_string()
                    } else {
                        sp.iter()
                            .position(|&s| s == d)
                            .map_or("?".to_string(), |k| k.to_string())
                    }
                })
                .collect();
            format!("[{}]", v.join(", "))
        };
        let dims = format!(
            "{}x{}->{}",
            spec(
                int("input_batch_dimension")?,
                int("input_feature_dimension")?,
                &list("input_spatial_dimensions")?,
                "b",
                "f"
            ),
            spec(
                int("kernel_output_feature_dimension")?,
                int("kernel_input_feature_dimension")?,
                &list("kernel_spatial_dimensions")?,
                "o",
                "i"
            ),
            spec(
                int("output_batch_dimension")?,
                int("output_feature_dimension")?,
                &list("output_spatial_dimensions")?,
                "b",
                "f"
            ),
        );
        let mut window = Vec::new();
        for (k, w) in [
            ("window_strides", "stride"),
            ("lhs_dilation", "lhs_dilate"),
            ("rhs_dilation", "rhs_dilate"),
        ] {
            if get(k).is_some() {
                window.push(format!("{w} = [{}]", join(&list(k)?)));
            }
        }
        if get("padding").is_some() {
            let p = list("padding")?;
            let pairs: Vec<String> = p.chunks(2).map(|c| format!("[{}]", join(c))).collect();
            window.push(format!("pad = [{}]", pairs.join(", ")));
        }
        if get("window_reversal").is_some() {
            let r: Vec<&str> = list("window_reversal")?
                .iter()
                .map(|&b| if b != 0 { "true" } else { "false" })
                .collect();
            window.push(format!("reverse = [{}]", r.join(", ")));
        }
        let mut rest = Vec::new();
        for k in ["batch_group_count", "feature_group_count"] {
            rest.push(format!("{k} = {} : i64", int(k)?));
        }
        if let Some(a) = get("precision_config") {
            rest.push(format!(
                "precision_config = {}",
                self.attr_text(op, "precision_config", a, 0)?
            ));
        }
        let _ = writeln!(
            self.out,
            "{indent}{lhs}stablehlo.convolution({}) dim_numbers = {dims}, window = {{{}}} {{{}}} : {sig}",
            operands.join(", "),
            window.join(", "),
            rest.join(", ")
        );
        Ok(())
    }

    /// The integers of a dense integer tensor, an array of integers or an integer.
    fn ints(&self, op: &Op, a: usize) -> BResult<Vec<i64>> {
        match self.attr(a) {
            At::Int { bits, value, .. } => Ok(vec![sext(*value, *bits)]),
            At::Bool(b) => Ok(vec![*b as i64]),
            At::Dense { ty, data } => {
                let (shape, elem) = self.tensor_of(op, *ty)?;
                let Some(bits) = int_bits(&self.bc.types, elem) else {
                    return self.fail(op, "expected an integer tensor");
                };
                let w = bits.div_ceil(8).max(1) as usize;
                let n = num_elements(&shape).unwrap_or(0) as usize;
                if data.len() != w && data.len() != w * n {
                    return self.fail(op, "a tensor's data does not match its type");
                }
                if n > 1 << 24 {
                    return self.fail(op, "an integer list of more than 2^24 elements");
                }
                self.charge(op, n.saturating_mul(8))?;
                Ok((0..n)
                    .map(|i| {
                        let at = if data.len() == w { 0 } else { i * w };
                        let mut v = 0u128;
                        for (k, &b) in data[at..at + w].iter().enumerate() {
                            v |= (b as u128) << (8 * k);
                        }
                        sext(v, (8 * w as u32).min(bits.max(1)))
                    })
                    .collect())
            }
            At::Array(v) => {
                let mut out = Vec::new();
                for &e in v {
                    out.extend(self.ints(op, e)?);
                }
                Ok(out)
            }
            a => self.fail(op, format!("expected integers, found {}", kind(a))),
        }
    }

    fn tensor_of(&self, op: &Op, ty: usize) -> BResult<(Vec<i64>, usize)> {
        match self.bc.types.get(ty) {
            Some(Ty::Tensor { shape, elem, .. }) => Ok((shape.clone(), *elem)),
            _ => self.fail(op, "dense elements of a non-tensor type"),
        }
    }

    /// An attribute as StableHLO's MLIR text writes it.
    fn attr_text(&self, op: &Op, key: &str, a: usize, depth: usize) -> BResult<String> {
        if depth > super::syntax::MAX_DEPTH {
            return self.fail(op, "attributes nest too deeply");
        }
        self.step(op)?;
        let sub = |a: usize| self.attr_text(op, "", a, depth + 1);
        Ok(match self.attr(a) {
            At::Array(v) => format!(
                "[{}]",
                v.iter().map(|&e| sub(e)).collect::<BResult<Vec<_>>>()?.join(", ")
            ),
            At::Dict(v) => {
                let mut s = Vec::new();
                for &(k, e) in v {
                    s.push(format!("{} = {}", symbol(self.str_of(op, k)?), sub(e)?));
                }
                format!("{{{}}}", s.join(", "))
            }
            At::Str(s) => quote(s),
            At::Sym(s) => format!("@{}", symbol(self.str_of(op, *s)?)),
            At::Type(t) => self.ty(op, *t, 0)?,
            At::Unit => "unit".into(),
            At::Bool(b) => b.to_string(),
            At::Int { ty, bits, value } => {
                if self.bc.types.get(*ty) == Some(&Ty::Bool) {
                    (value & 1 == 1).to_string()
                } else {
                    let v = match self.bc.types.get(*ty) {
                        Some(Ty::Int { signed: Some(false), .. }) => value.to_string(),
                        _ => sext(*value, *bits).to_string(),
                    };
                    format!("{v} : {}", self.ty(op, *ty, 0)?)
                }
            }
            At::Float { ty, bits } => format!("{} : {}", float_text(self.bc.types.get(*ty), *bits), self.ty(op, *ty, 0)?),
            At::Enum(kind, v) => {
                let Some(name) = enum_name(kind, *v) else {
                    return self.fail(op, format!("unknown {kind} value {v}"));
                };
                format!("#stablehlo<{kind} {name}>")
            }
            At::Dense { ty, data } => {
                let (shape, elem) = self.tensor_of(op, *ty)?;
                if shape.iter().any(|&d| d > 1 << 24) {
                    return self.fail(op, format!("attribute '{key}' has a dimension over 2^24"));
                }
                let is_int = int_bits(&self.bc.types, elem).is_some();
                self.charge(op, data.len().saturating_mul(4))?;
                if key != "value" && is_int && shape.len() == 1 {
                    let v = self.ints(op, a)?;
                    let t = if self.bc.types.get(elem) == Some(&Ty::Bool) { "i1" } else { "i64" };
                    if v.is_empty() {
                        format!("array<{t}>")
                    } else if t == "i1" {
                        let b: Vec<&str> = v.iter().map(|&x| if x != 0 { "true" } else { "false" }).collect();
                        format!("array<i1: {}>", b.join(", "))
                    } else {
                        format!("array<i64: {}>", join(&v))
                    }
                } else if key != "value" && is_int && shape.len() > 1 {
                    let v = self.ints(op, a)?;
                    format!("dense<{}> : {}", nested(&v, &shape), self.ty(op, *ty, 0)?)
                } else if data.is_empty() {
                    format!("dense<> : {}", self.ty(op, *ty, 0)?)
                } else {
                    let mut hex = String::with_capacity(2 * data.len() + 2);
                    hex.push_str("0x");
                    for b in data {
                        let _ = write!(hex, "{b:02X}");
                    }
                    format!("dense<\"{hex}\"> : {}", self.ty(op, *ty, 0)?)
                }
            }
            At::DenseArray { elem, n, data } => {
                let Some(bits) = int_bits(&self.bc.types, *elem) else {
                    return self.fail(op, "a dense array of non-integers");
                };
                self.charge(op, data.len().saturating_mul(4))?;
                let w = bits.div_ceil(8).max(1) as usize;
                if (*n as usize).saturating_mul(w) != data.len() {
                    return self.fail(op, "a dense array's data does not match its size");
                }
                let v: Vec<i64> = data
                    .chunks(w)
                    .map(|c| {
                        let mut v = 0u128;
                        for (k, &b) in c.iter().enumerate() {
                            v |= (b as u128) << (8 * k);
                        }
                        sext(v, bits)
                    })
                    .collect();
                let t = self.ty(op, *elem, 0)?;
                if v.is_empty() {
                    format!("array<{t}>")
                } else {
                    format!("array<{t}: {}>", join(&v))
                }
            }
            At::OutputOperandAlias {
                output_tuple_indices,
                operand_index,
                operand_tuple_indices,
            } => format!(
                "#stablehlo.output_operand_alias<output_tuple_indices = [{}], operand_index = {operand_index}, operand_tuple_indices = [{}]>",
                join(output_tuple_indices),
                join(operand_tuple_indices)
            ),
            At::TypeExtensions(b) => format!("#stablehlo.bounds<{}>", join(b)),
            At::Asm(s) => s.clone(),
            At::Loc => return self.fail(op, format!("attribute '{key}' is a location")),
            // Kept opaque, as the text reader keeps attributes it does not
            // read (`#sdy.sharding_rule<...>`): an error only where lowering needs it.
            At::Other(what) => format!("#hlox.unreadable<\"{}\">", what.replace(['"', '<', '>'], "")),
        })
    }
}

fn kind(a: &At) -> &'static str {
    match a {
        At::Array(_) => "an array",
        At::Dict(_) => "a dictionary",
        At::Str(_) => "a string",
        At::Sym(_) => "a symbol",
        At::Type(_) => "a type",
        At::Unit => "a unit attribute",
        At::Int { .. } => "an integer",
        At::Float { .. } => "a float",
        At::Bool(_) => "a boolean",
        At::Enum(..) => "an enum",
        At::Dense { .. } => "dense elements",
        At::DenseArray { .. } => "a dense array",
        At::OutputOperandAlias { .. } => "an output-operand alias",
        At::TypeExtensions(_) => "type bounds",
        At::Loc => "a location",
        At::Asm(_) => "an attribute in text form",
        At::Other(_) => "an attribute hlox does not read",
    }
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `[[1, 2], [3, 4]]` for a row-major list of the given shape.
fn nested(v: &[i64], shape: &[i64]) -> String {
    match shape.split_first() {
        None => v.first().map_or(String::new(), |x| x.to_string()),
        Some((&d, rest)) => {
            let inner = num_elements(rest).unwrap_or(1).max(1) as usize;
            let d = d.max(0) as usize;
            let parts: Vec<String> = (0..d)
                .map(|i| nested(v.get(i * inner..(i + 1) * inner).unwrap_or(&[]), rest))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// Sign-extends the low `bits` of `v`.
fn sext(v: u128, bits: u32) -> i64 {
    if bits == 0 || bits >= 128 {
        return v as i64;
    }
    let shift = 128 - bits;
    (((v << shift) as i128) >> shift) as i64
}

/// A float as MLIR prints it: `2.000000e+00` when six digits give the
/// value back, else the shortest digits that do, else (inf, NaN, other
/// formats) the bit pattern in hex.
fn float_text(ty: Option<&Ty>, bits: u64) -> String {
    let (v, back): (f64, fn(f64) -> u64) = match ty {
        Some(Ty::Float("f64", _)) => (f64::from_bits(bits), |x| x.to_bits()),
        Some(Ty::Float("f32", _)) => (f32::from_bits(bits as u32) as f64, |x| {
            (x as f32).to_bits() as u64
        }),
        Some(Ty::Float("f16", _)) => (half::f16::from_bits(bits as u16).to_f64(), |x| {
            half::f16::from_f64(x).to_bits() as u64
        }),
        Some(Ty::Float("bf16", _)) => (half::bf16::from_bits(bits as u16).to_f64(), |x| {
            half::bf16::from_f64(x).to_bits() as u64
        }),
        _ => return format!("0x{bits:X}"),
    };
    if !v.is_finite() {
        return format!("0x{bits:X}");
    }
    let e = format!("{v:.6e}");
    if let Some((m, exp)) = e.split_once('e') {
        let exp: i32 = exp.parse().unwrap_or(0);
        let s = format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        if s.parse::<f64>().map(back) == Ok(bits) {
            return s;
        }
    }
    match ty {
        Some(Ty::Float("f32", _)) => format!("{:?}", v as f32),
        _ => format!("{v:?}"),
    }
}

fn enum_name(kind: &str, v: u64) -> Option<&'static str> {
    let names: &[&str] = match kind {
        "comparison_direction" => &["EQ", "NE", "GE", "GT", "LE", "LT"],
        "comparison_type" => &["NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"],
        "precision" => &["DEFAULT", "HIGH", "HIGHEST"],
        "fft_type" => &["FFT", "IFFT", "RFFT", "IRFFT"],
        "rng_algorithm" => &["DEFAULT", "THREE_FRY", "PHILOX"],
        "rng_distribution" => &["INVALID", "UNIFORM", "NORMAL"],
        "transpose" => &["TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"],
        "result_accuracy_mode" => &["DEFAULT", "HIGHEST", "TOLERANCE"],
        "api_version" => &[
            "API_VERSION_UNSPECIFIED",
            "API_VERSION_ORIGINAL",
            "API_VERSION_STATUS_RETURNING",
            "API_VERSION_STATUS_RETURNING_UNIFIED",
            "API_VERSION_TYPED_FFI",
        ],
        _ => return None,
    };
    names.get(usize::try_from(v).ok()?).copied()
}
