/* A minimal sequentially consistent implementation of the SMA API of
 * sma/README.md, used by the pass tests: plain memory, no records. */
typedef unsigned int sma_loc_t;
typedef unsigned int sma_thread_t;
typedef unsigned int sma_stmt_t;
#define SMA_RMW_EXCHANGE 0
#define SMA_RMW_ADD 1
#define SMA_RMW_SUB 2
#define SMA_RMW_AND 3
#define SMA_RMW_OR 4
#define SMA_RMW_XOR 5
#define SMA_RMW_CAS 6
#define SMA_EV_CREATE 11
#define SMA_EV_JOIN 12
#define SMA_EV_ATOMIC_BEGIN 13
#define SMA_EV_ATOMIC_END 14

/* The translator records thread creation and atomic sections; nothing to record here. */
void sma_record(unsigned int kind, sma_thread_t t, sma_loc_t loc, sma_value_t value,
                unsigned int timestamp, unsigned int write_id, unsigned int read_from,
                sma_stmt_t stmt) {}

static sma_value_t sma_memory[SMA_LOCATIONS];
static unsigned int sma_blocks_used;

static void sma_check(sma_loc_t loc) { __CPROVER_assume(loc >= 1 && loc < SMA_LOCATIONS); }

void sma_init(void) {
  unsigned int i;
  for (i = 0; i < SMA_LOCATIONS; i++) sma_memory[i] = sma_initial_value[i];
  sma_blocks_used = 0;
}
sma_value_t sma_read(sma_loc_t loc, sma_thread_t t, sma_stmt_t stmt) { sma_check(loc); return sma_memory[loc]; }
void sma_write(sma_loc_t loc, sma_value_t value, sma_thread_t t, sma_stmt_t stmt) { sma_check(loc); sma_memory[loc] = value; }
void sma_fence(sma_thread_t t, sma_stmt_t stmt) {}
void sma_store_fence(sma_thread_t t, sma_stmt_t stmt) {}
void sma_lock(sma_loc_t m, sma_thread_t t, sma_stmt_t stmt) { sma_check(m); __CPROVER_assume(sma_memory[m] == 0); sma_memory[m] = 1; }
void sma_unlock(sma_loc_t m, sma_thread_t t, sma_stmt_t stmt) { sma_check(m); sma_memory[m] = 0; }
sma_value_t sma_rmw(sma_loc_t loc, int op, sma_value_t operand, sma_value_t expected, sma_thread_t t, sma_stmt_t stmt) {
  sma_value_t old;
  sma_check(loc);
  old = sma_memory[loc];
  if (op == SMA_RMW_EXCHANGE) sma_memory[loc] = operand;
  else if (op == SMA_RMW_ADD) sma_memory[loc] = old + operand;
  else if (op == SMA_RMW_SUB) sma_memory[loc] = old - operand;
  else if (op == SMA_RMW_AND) sma_memory[loc] = old & operand;
  else if (op == SMA_RMW_OR) sma_memory[loc] = old | operand;
  else if (op == SMA_RMW_XOR) sma_memory[loc] = old ^ operand;
  else if (op == SMA_RMW_CAS) { if (old == expected) sma_memory[loc] = operand; }
  return old;
}
sma_loc_t sma_malloc(sma_value_t scalars, int zeroed, sma_thread_t t, sma_stmt_t stmt) {
  sma_loc_t base;
  unsigned int j;
  __CPROVER_assume(sma_blocks_used < SMA_HEAP_BLOCKS && scalars <= SMA_HEAP_BLOCK_SIZE);
  base = SMA_HEAP_BASE + sma_blocks_used * SMA_HEAP_BLOCK_SIZE;
  sma_blocks_used++;
  if (zeroed) for (j = 0; j < SMA_HEAP_BLOCK_SIZE; j++) sma_memory[base + j] = 0;
  return base;
}
void sma_join(sma_thread_t joined, sma_thread_t t, sma_stmt_t stmt) {}
