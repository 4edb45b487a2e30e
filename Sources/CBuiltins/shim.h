#ifndef LISTSERVER_CBUILTINS_SHIM_H
#define LISTSERVER_CBUILTINS_SHIM_H

// The C compiler's builtins that Swift cannot reach, as static inline functions: no library and no package (they
// are clang's own). ListServer's Memory/ room alone imports this module.
//
// Why a module for one builtin: Swift has no prefetch. Clang's `_mm_prefetch` is a macro, and `_m_prefetchw`, which
// Swift does import from `_Builtin_intrinsics.intel`, compiles to nothing for the baseline x86-64 target (no PRFCHW
// feature; checked with objdump). `__builtin_prefetch` compiles to `prefetcht0` there and `prfm` on arm64.

/// Asks the CPU to bring the cache line holding `address` into its caches, to be written soon, and goes on without
/// waiting. A hint: it never faults, whatever `address` is.
static inline void cbuiltins_prefetch_for_writing(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// The same, for memory to be read soon.
static inline void cbuiltins_prefetch_for_reading(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
