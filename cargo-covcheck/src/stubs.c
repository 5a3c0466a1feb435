/* Weak, do-nothing SanitizerCoverage callbacks.
 *
 * `cargo covcheck` instruments every target of the crate under test. Targets
 * that link the instrumented library without covcheck-rt (examples, binaries,
 * tests without properties) would otherwise fail to link. covcheck-rt's strong
 * definitions win wherever it is linked; this archive is only searched for
 * symbols still missing. */
#include <stdint.h>

#define WEAK __attribute__((weak))

WEAK void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) { (void)start; (void)stop; }
WEAK void __sanitizer_cov_pcs_init(const uintptr_t *start, const uintptr_t *stop) { (void)start; (void)stop; }
WEAK void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b) { (void)a; (void)b; }
WEAK void __sanitizer_cov_trace_pc(void) {}
WEAK void __sanitizer_cov_trace_switch(uint64_t value, uint64_t *cases) { (void)value; (void)cases; }
