/*
** The host side of ROCm's hostcall protocol: the buffer through which
** device code calls the host while a kernel runs. hipcc 5.2 compiles
** device printf into such calls (__ockl_printf_begin/append_* over
** __ockl_hostcall_internal); a kernel that may call printf declares a
** hidden_hostcall_buffer argument, and the runtime puts the buffer's
** address there.
**
** The buffer lives in device memory, with the layout the device library
** expects (ROCm-Device-Libs ockl hostcall_impl, the facts only):
**
**   buffer   +0 headers (u64 VA)   +8 payloads (u64 VA)  +16 doorbell
**            (u64 VA of an amd_signal_t)  +24 free_stack  +32 ready_stack
**            +40 index_mask (u64): stacks hold tagged packet pointers,
**            the packet index in the mask's bits, an ABA tag above (the
**            layout hipcc 5.2's device library reads; older ones had a
**            32-bit index_size there)
**   header   24 bytes: next, activemask (u64), service, control (u32;
**            bit 0 = READY: set by the wave, cleared by the host)
**   payload  4096 bytes: 64 lanes x 8 u64 slots
**
** A wave pops a free packet, fills it, pushes it on the ready stack, rings
** the doorbell and spins (s_sleep) until READY is cleared; then it reads
** the first two slots of its lane and pushes the packet back on the free
** stack. The listener here takes the whole ready stack, serves every
** packet and clears READY.
**
** When it runs: the device library rings the doorbell (an atomic add to
** an HSA signal) and, since the signal has an event mailbox, writes the
** signal's event id there and sends an interrupt (s_sendmsg
** MSG_INTERRUPT, M0 = the id). The interrupt is the host's turn: in emu
** mode the listener runs at once (gcn_emu_launch.interrupt); in timing
** mode a host agent on the GPU's side of the host link does the same work
** with memory requests through the L2 (hostcall_agent.h).
**
** Services: 2 = printf (messages of several calls, devprintf.c); any other
** service ends the launch with an error naming it.
*/
#ifndef MGS_RUNTIME_HOSTCALL_H
#define MGS_RUNTIME_HOSTCALL_H

#include "runtime/devmem.h"

#include <stdint.h>
#include <stdio.h>

typedef struct mgs_hostcall mgs_hostcall;

/* Allocates and initialises a buffer on gpu with room for packets
** concurrent calls (one per wave that may call at once; index 0 is never
** used, so packets + 1 are allocated). out and err receive printf's
** stdout and stderr streams. */
int mgs_hostcall_new(mgs_devmem *mem, int gpu, uint32_t packets, FILE *out,
                     FILE *err, mgs_hostcall **hc);
void mgs_hostcall_free(mgs_hostcall *hc);
/* The VA to pass in the hidden_hostcall_buffer argument. */
uint64_t mgs_hostcall_va(const mgs_hostcall *hc);

/* The signal's event id: the interrupt data of a hostcall doorbell. */
#define MGS_HOSTCALL_EVENT 0x68u
#define MGS_HOSTCALL_HEADER 24     /* bytes of a packet header */

/* Emu mode's interrupt handler (gcn_emu_launch.interrupt): for the
** hostcall event, serves every packet on the ready stack straight in
** device memory. MGS_OK, or the listener's first error (a bad packet, an
** unknown service), which stays: every later call returns it too. */
int mgs_hostcall_interrupt(void *hc, uint32_t data);

/* Where things are, for a listener that reaches the buffer by messages. */
typedef struct mgs_hostcall_layout {
    uint64_t ready_stack;      /* VA of the ready stack's top (u64) */
    uint64_t headers;          /* VA of header 0 (MGS_HOSTCALL_HEADER each) */
    uint64_t payloads;         /* VA of payload 0 (4096 bytes each) */
    uint64_t index_mask;       /* packet index bits of a stack pointer */
    uint32_t packets;          /* usable packets: indexes 1..packets */
} mgs_hostcall_layout;
void mgs_hostcall_layout_get(const mgs_hostcall *hc, mgs_hostcall_layout *l);

/* Serves one packet read into host memory: every active lane's call is
** answered in slots (its first two words), and READY is cleared in hdr;
** write back both (the payload first). MGS_OK or the listener's error. */
int mgs_hostcall_serve(mgs_hostcall *hc, uint8_t hdr[MGS_HOSTCALL_HEADER],
                       uint64_t slots[64][8]);
/* MGS_OK, or the first error the listener met (its message set then). */
int mgs_hostcall_error(const mgs_hostcall *hc);
/* Writes out what the completed printf calls produced, in order. */
void mgs_hostcall_flush(mgs_hostcall *hc);

/* Test-only faults (tests/unit/runtime/test_hostcall.c shows that each
** makes a run fail): 0 none; 1 the answers are not written (printf's
** return value is wrong); 2 READY is never cleared (the wave waits for
** ever: the instruction limit or the watchdog ends the run). */
extern int mgs_hostcall_test_break;

#endif
