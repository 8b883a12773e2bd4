//! A typed-FFI call that compiled code makes itself: the recipe for its
//! call frame, as stores at byte offsets, and the per-run memory the
//! frames live in, so a backend's generated code calls the handler with no
//! runtime call in between and writes only the call's data pointers
//! (issue 26: a custom call may cost at most a few ns over a direct call of
//! the same handler).
//!
//! The layouts stay here, in the home of the ABI structures. A backend
//! places each call's recipe ([`DirectCall`]) in one [`FrameLayout`] per
//! executable ([`FrameLayout::place`]), which writes down every store
//! that is the same in every call (struct sizes, types, ranks, dimensions,
//! attributes, the API table, the context) and gives the backend a
//! [`PlacedCall`]: where the frame is, and the few stores a call makes
//! (its buffers' data pointers). A run takes a [`FrameArena`] (made from
//! the layout, which performs the constant stores once, and reused by
//! later runs); the generated code then writes the data pointers at the
//! arena's base plus their offsets, calls [`PlacedCall::handler`] on the
//! frame, and takes the slow path ([`finish_direct`]) when the handler
//! returned an error or a future, or left scratch memory allocated
//! ([`InvokeContext::scratch_live_offset`]).
//!
//! Why a frame may be reused from call to call: in `xla/ffi/api/c_api.h`
//! every field of `XLA_FFI_CallFrame` is the runtime's input except
//! `future`, marked "out" (the C++ binding in `api.h` writes only that
//! field, when the handler returns a future); the buffers, lists and
//! attributes a frame points at are read-only to the handler. XLA itself
//! keeps a pool of prepared call frames per custom call and updates only
//! their buffers per execution. So the arena's constant parts stay as
//! written, and the one field a handler writes is put back to null on the
//! slow path ([`PlacedCall::future`]) before the next call sees the frame.
//!
//! Architecture invariant: a direct call and [`FfiCall::call`] give the
//! handler the same frame (types, dimensions, attributes, state, stage,
//! run id); only who writes it, and when, differs. One arena serves one
//! run at a time (a run's calls are sequential); concurrent runs of one
//! executable each take their own.

use super::abi::{self, Buffer, CallFrame};
use super::api::{self, CallContext, InvokeContext};
use super::call::{FfiCall, FfiCallError};
use std::ffi::c_void;
use std::mem::{offset_of, size_of};
use std::ptr::NonNull;

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

impl Store {
    /// Whether the store differs from call to call: a buffer's data
    /// pointer. Every other store is the same for every call of the
    /// executable (given the arena), and a [`FrameArena`] performs it once.
    pub fn per_call(&self) -> bool {
        matches!(self.value, Value::Arg(_) | Value::Ret(_))
    }
}

/// A per-call store of a [`PlacedCall`]: the data pointer of argument or
/// result leaf `index`, written at `offset` from the arena's base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataStore {
    pub offset: usize,
    /// A result leaf (else an argument leaf).
    pub ret: bool,
    pub index: usize,
}

/// One direct call's place in a [`FrameArena`] (offsets from its base).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedCall {
    /// The handler's address (`XLA_FFI_Handler`, the execute stage).
    pub handler: usize,
    /// The call's `XLA_FFI_CallFrame`.
    pub frame: usize,
    /// Its `future` field, null before every call: a handler that leaves a
    /// future there sends the call down the slow path, which must put it
    /// back to null.
    pub future: usize,
    /// What a call writes before calling the handler.
    pub data: Vec<DataStore>,
}

/// What a constant store of a [`FrameLayout`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Constant {
    Word(u64),
    Half(u32),
    /// The arena's base plus this offset.
    Offset(usize),
    /// The address of the arena's [`InvokeContext`].
    Invoke,
}

/// Where the call frames of one executable's direct calls lie in a
/// [`FrameArena`], and the constant stores that fill them in.
///
/// The constant stores hold addresses owned by the [`FfiCall`]s placed
/// (dimensions, type arrays, attributes, the state): those calls must
/// outlive every arena made from the layout.
#[derive(Clone, Debug, Default)]
pub struct FrameLayout {
    stores: Vec<(usize, Constant)>,
    size: usize,
    calls: usize,
}

/// Each call's part of an arena starts on its own cache line.
const CALL_ALIGN: usize = 64;

impl FrameLayout {
    /// Places the frame of `call` after those placed so far.
    pub fn place(&mut self, call: &DirectCall) -> PlacedCall {
        let start = self.size.next_multiple_of(CALL_ALIGN);
        let area8 = |size: usize| size.next_multiple_of(8);
        let frame = start;
        let context = frame + area8(call.frame_size);
        let buffers = context + area8(call.context_size);
        let pointers = buffers + area8(call.buffers_size);
        self.size = pointers + area8(call.pointers_size);
        self.calls += 1;
        let base = |a: Area| match a {
            Area::Frame => frame,
            Area::Context => context,
            Area::Buffers => buffers,
            Area::Pointers => pointers,
        };
        let mut data = Vec::new();
        for s in &call.stores {
            let at = base(s.area) + s.offset;
            let constant = match s.value {
                Value::Arg(index) | Value::Ret(index) => {
                    data.push(DataStore {
                        offset: at,
                        ret: matches!(s.value, Value::Ret(_)),
                        index,
                    });
                    continue;
                }
                Value::Word(w) => Constant::Word(w),
                Value::Half(h) => Constant::Half(h),
                Value::Address(a, off) => Constant::Offset(base(a) + off),
                Value::Invoke => Constant::Invoke,
            };
            self.stores.push((at, constant));
        }
        PlacedCall {
            handler: call.handler,
            frame,
            future: frame + call.future_offset,
            data,
        }
    }

    /// Bytes of an arena.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many calls are placed.
    pub fn calls(&self) -> usize {
        self.calls
    }
}

/// The call frames of one run of an executable (see the module docs),
/// with the run's [`InvokeContext`] (run id, Host platform, the scratch
/// memory of the call under way). Made once from a [`FrameLayout`] and
/// reused by later runs ([`FrameArena::start_run`]); one run at a time.
pub struct FrameArena {
    /// 8-byte words, a [`CALL_ALIGN`]-aligned block of the layout's size
    /// starting at word `first`.
    words: Vec<u64>,
    first: usize,
    /// Owned (from `Box::into_raw`): the frames' contexts point at it, so
    /// it is only reached through this pointer, never through a `Box`.
    invoke: NonNull<InvokeContext>,
}

// SAFETY: the arena is used by one run at a time and moves between threads
// only between runs (the executable's pool hands it out). The frames hold
// plain words, and the Host `InvokeContext` has a null stream and no
// device; its `Cell`s are touched only by the run that holds the arena.
unsafe impl Send for FrameArena {}

/// An arena could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FrameArenaError {
    #[error(
        "the call frames of {calls} typed-FFI calls ({bytes} bytes): out of memory ({source}); \
         free memory or run fewer copies of the executable at once"
    )]
    OutOfMemory {
        calls: usize,
        bytes: usize,
        source: std::collections::TryReserveError,
    },
}

impl FrameArena {
    /// An arena for `layout`, its constant stores performed, with a Host
    /// context for run `run_id`.
    pub fn new(layout: &FrameLayout, run_id: i64) -> Result<FrameArena, FrameArenaError> {
        let n = layout.size.div_ceil(8) + CALL_ALIGN / 8;
        let mut words = Vec::new();
        words
            .try_reserve_exact(n)
            .map_err(|source| FrameArenaError::OutOfMemory {
                calls: layout.calls,
                bytes: n * 8,
                source,
            })?;
        words.resize(n, 0u64);
        // In words; 8-byte alignment is all the frames need, so a block
        // that cannot be aligned further (never, in practice) starts at 0.
        let first = match words.as_ptr().align_offset(CALL_ALIGN) {
            k if k < CALL_ALIGN / 8 => k,
            _ => 0,
        };
        let invoke = NonNull::from(Box::leak(Box::new(InvokeContext::host(run_id))));
        let mut arena = FrameArena {
            words,
            first,
            invoke,
        };
        let base = arena.base();
        for &(at, c) in &layout.stores {
            // SAFETY: `place` put every store inside the layout's size,
            // which the block holds from `base`; unaligned writes, so no
            // alignment is assumed.
            unsafe {
                let p = base.add(at);
                match c {
                    Constant::Word(w) => p.cast::<u64>().write_unaligned(w),
                    Constant::Half(h) => p.cast::<u32>().write_unaligned(h),
                    Constant::Offset(off) => p.cast::<u64>().write_unaligned(base.add(off) as u64),
                    Constant::Invoke => p.cast::<u64>().write_unaligned(invoke.as_ptr() as u64),
                }
            }
        }
        Ok(arena)
    }

    /// The base the [`PlacedCall`] offsets count from.
    pub fn base(&mut self) -> *mut u8 {
        // SAFETY: `first` is within the block (`new`).
        unsafe { self.words.as_mut_ptr().add(self.first) as *mut u8 }
    }

    /// The context every frame of the arena points at.
    pub fn invoke(&self) -> *const InvokeContext {
        self.invoke.as_ptr()
    }

    /// Readies the arena for run `run_id` (as XLA gives one id per
    /// execution): the frames' constant parts are as `new` wrote them.
    pub fn start_run(&mut self, run_id: i64) {
        // SAFETY: the arena is held by `&mut`: no run uses the context.
        unsafe { (*self.invoke.as_ptr()).run_id = run_id };
    }
}

impl Drop for FrameArena {
    fn drop(&mut self) {
        // SAFETY: from `Box::leak` in `new`, freed once, here (its
        // scratch memory, if a run left any, with it).
        drop(unsafe { Box::from_raw(self.invoke.as_ptr()) });
    }
}

impl std::fmt::Debug for FrameArena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameArena")
            .field("words", &self.words.len())
            .finish_non_exhaustive()
    }
}

/// The slow path of a direct call, taken when the handler returned an
/// error (`err`) or left a future in its frame's `future` field
/// (`future_slot`), or left scratch memory in the arena's context: puts
/// the field back to null (the frame serves the next call), waits for the
/// future, frees the scratch memory (a call's scratch lives for the call,
/// as in XLA) and gives the handler's error.
///
/// # Safety
/// `err` is what the handler just returned; `future_slot` is the `future`
/// field of the frame it ran on ([`PlacedCall::future`]); `invoke` is the
/// context that frame points at.
pub unsafe fn finish_direct(
    err: *mut abi::Error,
    future_slot: *mut *mut c_void,
    invoke: &InvokeContext,
) -> Result<(), FfiCallError> {
    let future = unsafe { future_slot.replace(std::ptr::null_mut()) };
    let r = unsafe { super::call::finish_parts(err, future as *mut abi::Future) };
    invoke.release_scratch();
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xla_ffi::{FfiError, Frame};
    use crate::{Platform, Registry};
    use hlox_hlo::{ElementType, Shape};

    fn add_one(f: &mut Frame) -> Result<(), FfiError> {
        let x = f.arg(0)?.slice::<f32>()?[0];
        if x < 0.0 {
            return Err(FfiError::msg(format!("negative input {x}")));
        }
        f.ret(0)?.slice_mut::<f32>()?[0] = x + 1.0;
        Ok(())
    }

    /// What a backend's generated code does: writes the data pointers,
    /// calls the handler on the frame, and takes the slow path when needed.
    unsafe fn call(
        arena: &mut FrameArena,
        p: &PlacedCall,
        x: &f32,
        out: &mut f32,
    ) -> Result<(), FfiCallError> {
        let base = arena.base();
        for s in &p.data {
            let ptr = if s.ret {
                out as *mut f32 as u64
            } else {
                x as *const f32 as u64
            };
            unsafe { base.add(s.offset).cast::<u64>().write(ptr) };
        }
        let handler: abi::Handler = unsafe { std::mem::transmute(p.handler) };
        let err = unsafe { handler(base.add(p.frame).cast()) };
        let slot = unsafe { base.add(p.future).cast::<*mut c_void>() };
        let invoke = unsafe { &*arena.invoke() };
        if err.is_null() && unsafe { *slot }.is_null() {
            return Ok(());
        }
        unsafe { finish_direct(err, slot, invoke) }
    }

    #[test]
    fn frames_written_once_serve_every_call_of_each_arena() {
        let registry = Registry::new();
        registry
            .register_fn("direct_add_one", Platform::Host, add_one)
            .unwrap();
        let target = registry.lookup("direct_add_one", Platform::Host).unwrap();
        let shape = Shape::array(ElementType::F32, vec![1]);
        let prepared = FfiCall::new(&target, b"", &[&shape], &shape).unwrap();
        let recipe = prepared.direct().expect("no GPU stages");
        let mut layout = FrameLayout::default();
        let first = layout.place(&recipe);
        let second = layout.place(&recipe);
        assert_eq!(layout.calls(), 2);
        assert!(second.frame >= first.frame + recipe.frame_size);
        assert_eq!(first.data.len(), 2, "one argument and one result pointer");
        let mut a = FrameArena::new(&layout, 10).unwrap();
        let mut b = FrameArena::new(&layout, 20).unwrap();
        assert_ne!(a.base(), b.base());
        // The constant parts: sizes, list lengths, the stage, the context.
        for arena in [&mut a, &mut b] {
            let invoke = arena.invoke() as u64;
            let base = arena.base();
            for p in [&first, &second] {
                let frame = unsafe { &*(base.add(p.frame) as *const CallFrame) };
                assert_eq!(frame.struct_size, abi::CALL_FRAME_STRUCT_SIZE);
                assert_eq!((frame.args.size, frame.rets.size), (1, 1));
                assert_eq!(frame.stage, abi::stage::EXECUTE);
                assert!(frame.future.is_null());
                let ctx = unsafe { &*(frame.ctx as *const CallContext) };
                assert_eq!(ctx.invoke as *const InvokeContext as u64, invoke);
            }
        }
        let (mut x, mut y) = (1f32, 0f32);
        for run in 0..3 {
            a.start_run(100 + run);
            b.start_run(200 + run);
            assert_eq!(unsafe { &*a.invoke() }.run_id, 100 + run);
            for p in [&first, &second] {
                unsafe { call(&mut a, p, &x, &mut y) }.unwrap();
                x = y;
                unsafe { call(&mut b, p, &y, &mut x) }.unwrap();
            }
        }
        assert_eq!(x, 13.0, "twelve calls of x + 1 on two arenas");
        // A failing call takes the slow path and leaves the frame usable.
        let e = unsafe { call(&mut a, &first, &-1.0, &mut y) }.unwrap_err();
        assert!(e.to_string().contains("negative input -1"), "{e}");
        unsafe { call(&mut a, &first, &2.0, &mut y) }.unwrap();
        assert_eq!(y, 3.0);
    }
}
