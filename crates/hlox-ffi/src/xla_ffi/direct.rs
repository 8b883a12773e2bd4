//! A typed-FFI call that compiled code makes itself: the recipe for its
//! call frame, as stores at byte offsets, so a backend's generated code
//! builds the `XLA_FFI_CallFrame` on its own stack and calls the handler
//! with no runtime call in between (issue 26: a custom call may cost at
//! most a few ns over a direct call of the same handler).
//!
//! The layouts stay here, in the home of the ABI structures: a backend
//! only allocates the four areas a [`DirectCall`] names, performs its
//! [`Store`]s, calls [`DirectCall::handler`] on the frame, and takes the
//! slow path ([`finish_direct`]) when the handler returned an error or a
//! future, or left scratch memory allocated
//! ([`InvokeContext::scratch_live_offset`]). What the frame's context points
//! at ([`Value::Invoke`]) is the run's [`InvokeContext`], which the backend
//! keeps for the whole run.
//!
//! Architecture invariant: a direct call and [`FfiCall::call`] give the
//! handler the same frame (types, dimensions, attributes, state, stage,
//! run id); only who writes it differs.

use super::abi::{self, Buffer, CallFrame};
use super::api::{self, CallContext, InvokeContext};
use super::call::{FfiCall, FfiCallError};
use std::ffi::c_void;
use std::mem::{offset_of, size_of};

/// Where a [`Store`] writes: the frame, the frame's context, the buffer
/// descriptions (arguments then results, one [`Buffer`] each) or the
/// pointer lists (one pointer per buffer, arguments then results).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    Frame,
    Context,
    Buffers,
    Pointers,
}

/// What a [`Store`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A constant 8-byte word (sizes, addresses fixed when the call was
    /// prepared: the API table, dimensions, attributes, the state).
    Word(u64),
    /// A constant 4-byte word (the stage, a data type).
    Half(u32),
    /// The data pointer of operand leaf `i` (as the call's argument list
    /// orders them).
    Arg(usize),
    /// The data pointer of result leaf `i`.
    Ret(usize),
    /// The address of `area` plus `offset`.
    Address(Area, usize),
    /// The address of the run's [`InvokeContext`].
    Invoke,
}

/// One store of a call frame's recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Store {
    pub area: Area,
    pub offset: usize,
    pub value: Value,
}

/// The recipe of one prepared call's frame (see the module docs).
#[derive(Clone, Debug)]
pub struct DirectCall {
    /// The handler's address (`XLA_FFI_Handler`, the execute stage).
    pub handler: usize,
    /// Sizes of the areas, in bytes (every area 8-byte aligned).
    pub frame_size: usize,
    pub context_size: usize,
    pub buffers_size: usize,
    pub pointers_size: usize,
    /// Where the handler may leave a future (`XLA_FFI_CallFrame::future`).
    pub future_offset: usize,
    pub stores: Vec<Store>,
}

impl FfiCall {
    /// The recipe for calling this prepared call's execute stage from
    /// compiled code on the Host. `None` for a handler with a prepare or an
    /// initialize stage (GPU stages, which the Host does not run, so none
    /// is registered for it in practice): it keeps [`FfiCall::call`].
    pub fn direct(&self) -> Option<DirectCall> {
        use Value::{Address, Half, Word};
        if self.has_run_stages() {
            return None;
        }
        let (args, rets) = self.buffer_templates();
        let n = args.len() + rets.len();
        let mut stores = Vec::new();
        let mut put = |area: Area, base: usize, fields: &[(usize, Value)]| {
            for &(offset, value) in fields {
                stores.push(Store {
                    area,
                    offset: base + offset,
                    value,
                });
            }
        };
        let buf = size_of::<Buffer>();
        for (i, b) in args.iter().chain(rets).enumerate() {
            let data = match i.checked_sub(args.len()) {
                None => Value::Arg(i),
                Some(r) => Value::Ret(r),
            };
            put(
                Area::Buffers,
                i * buf,
                &[
                    (offset_of!(Buffer, struct_size), Word(b.struct_size as u64)),
                    (offset_of!(Buffer, extension_start), Word(0)),
                    (offset_of!(Buffer, dtype), Half(b.dtype as u32)),
                    (offset_of!(Buffer, data), data),
                    (offset_of!(Buffer, rank), Word(b.rank as u64)),
                    (offset_of!(Buffer, dims), Word(b.dims as u64)),
                ],
            );
            put(
                Area::Pointers,
                i * 8,
                &[(0, Address(Area::Buffers, i * buf))],
            );
        }
        // The two lists: sizes, the shared type array, their pointers.
        for (base, count, first) in [
            (offset_of!(CallFrame, args), args.len(), 0),
            (offset_of!(CallFrame, rets), rets.len(), args.len()),
        ] {
            put(
                Area::Frame,
                base,
                &[
                    (
                        offset_of!(abi::Args, struct_size),
                        Word(abi::ARGS_STRUCT_SIZE as u64),
                    ),
                    (offset_of!(abi::Args, extension_start), Word(0)),
                    (offset_of!(abi::Args, size), Word(count as u64)),
                    (offset_of!(abi::Args, types), Word(self.list_types() as u64)),
                    (
                        offset_of!(abi::Args, args),
                        Address(Area::Pointers, first * 8),
                    ),
                ],
            );
        }
        let attrs = self.frame_attrs();
        put(
            Area::Frame,
            offset_of!(CallFrame, attrs),
            &[
                (
                    offset_of!(abi::Attrs, struct_size),
                    Word(attrs.struct_size as u64),
                ),
                (offset_of!(abi::Attrs, extension_start), Word(0)),
                (offset_of!(abi::Attrs, size), Word(attrs.size as u64)),
                (offset_of!(abi::Attrs, types), Word(attrs.types as u64)),
                (offset_of!(abi::Attrs, names), Word(attrs.names as u64)),
                (offset_of!(abi::Attrs, attrs), Word(attrs.attrs as u64)),
            ],
        );
        let execute = Half(abi::stage::EXECUTE as u32);
        put(
            Area::Frame,
            0,
            &[
                (
                    offset_of!(CallFrame, struct_size),
                    Word(abi::CALL_FRAME_STRUCT_SIZE as u64),
                ),
                (offset_of!(CallFrame, extension_start), Word(0)),
                (
                    offset_of!(CallFrame, api),
                    Word(api::api() as *const abi::Api as u64),
                ),
                (offset_of!(CallFrame, ctx), Address(Area::Context, 0)),
                (offset_of!(CallFrame, stage), execute),
                (offset_of!(CallFrame, future), Word(0)),
            ],
        );
        // The context: the run's invocation, the stage, this call's state,
        // no CUDA run (a null `Option<&RunStages>`).
        put(
            Area::Context,
            0,
            &[
                (offset_of!(CallContext, invoke), Value::Invoke),
                (offset_of!(CallContext, stage), execute),
                (
                    offset_of!(CallContext, state),
                    Word(self.state_address() as u64),
                ),
                (offset_of!(CallContext, run), Word(0)),
            ],
        );
        Some(DirectCall {
            handler: self.execute_handler() as usize,
            frame_size: size_of::<CallFrame>(),
            context_size: size_of::<CallContext>(),
            buffers_size: n * buf,
            pointers_size: n * 8,
            future_offset: offset_of!(CallFrame, future),
            stores,
        })
    }
}

/// The slow path of a direct call, taken when the handler returned an
/// error (`err`) or a future, or left scratch memory in the run's context:
/// waits for the future, frees the scratch memory (a call's scratch lives
/// for the call, as in XLA) and gives the handler's error.
///
/// # Safety
/// `err` and `future` are what the handler just returned and left in its
/// frame; `invoke` is the context the frame pointed at.
pub unsafe fn finish_direct(
    err: *mut abi::Error,
    future: *mut c_void,
    invoke: &InvokeContext,
) -> Result<(), FfiCallError> {
    let r = unsafe { super::call::finish_parts(err, future as *mut abi::Future) };
    invoke.release_scratch();
    r
}
