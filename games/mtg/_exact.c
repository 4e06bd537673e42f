/* Exact perfect-information search of the mini Magic game, in C.
 *
 * The rules engine of gamelp.games.mtg.engine (Esche 2018, ch. 1.2 and 2.1-2.2)
 * re-stated over the same 26-field state, and the search of
 * gamelp.games.mtg.search without an evaluation cut-off: alpha-beta minimax
 * (Knuth & Moore 1975) on win = 1 / loss = -1 for player 0, with a
 * transposition table of (lower, upper) bounds. The table is a fixed array of
 * 2-entry buckets (one 64-byte cache line) keyed by the whole packed state (no
 * false hits); a full bucket gives up the entry whose subtree took the least
 * work. It is allocated in huge pages where the system allows (see new_table).
 *
 * The search's cost is mostly the table's cache misses, so the search removes
 * them where it can:
 * - the table keeps main-phase positions only (the positions where most lines
 *   of a turn meet again); the other phases' positions are searched without it;
 * - a node makes all its children before searching the first, and asks the
 *   processor for their buckets at once (prefetch), so their misses overlap;
 * - a position where the player to act can win at once with the Lightning
 *   Bolts in hand and the mana to cast them (in the main phase, a land first
 *   when one may still be played; in the defender's window after attacks on
 *   the attacker) is scored as won without a search: bolting the opponent's
 *   face until dead is a legal line nothing can interrupt.
 *
 * Inside the tree the search tries moves in an order of its own (a value does
 * not depend on it; the moves played do not either, see below): the pass (N)
 * last in every window, so in the pay window paying the life before letting the
 * Vexing Devil stay; in the main phase the bolts, then the creature, then the
 * pass; and discarding a creature before a bolt before a Mountain. On the games
 * of the 55-deck matrix this searches about 7 times fewer positions than the
 * engine's order (which lets the Devil stay first), mostly from the pay window.
 * A node looks at all its children before searching any: one over, or won at
 * once by bolting (below), for the player to move is taken without a search.
 *
 * Inside the tree, a player who may play a Mountain plays it before anything
 * else: with these cards a land on the battlefield is never worth less than
 * the same land in hand (more mana, a smaller hand to discard from, and no
 * option of the opponent depends on it), so the pruning keeps every value.
 *
 * A game (play) is searched once for the value of its opening position; then,
 * at each decision, every move of the losing side loses, so its first best
 * move is its first legal move (no search), and the winning side plays its
 * first winning move in the Python engine's order (the last move needs no
 * search when the others lose). So a game played here is the game the Python
 * players play, move for move, whatever the order the search tries moves in.
 * gamelp.games.mtg.exact wraps this module; the tests compare every transition
 * with the Python engine.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* ---- state layout (gamelp.games.mtg.engine) ---------------------------- */
enum { PHASE, ACTIVE, TURN, LAND_PLAYED, ATTACKERS, WINNER };
enum { LIFE, LIB, HAND_M, HAND_L, HAND_C, LANDS, MANA, READY, SICK, TAPPED };
enum { MAIN, PAY, ATTACK, RESPOND, BLOCK, DISCARD, OVER };
#define STATE_SIZE 26
#define NO_WINNER 2
static const int BASE[2] = {6, 16};
/* the fields' names, as gamelp.games.mtg.engine spells them (its constants), for the errors */
static const char *GAME_FIELDS[6] = {"PHASE", "ACTIVE", "TURN", "LAND_PLAYED", "ATTACKERS", "WINNER"};
static const char *PLAYER_FIELDS[10] = {"LIFE", "LIB", "HAND_M", "HAND_L", "HAND_C",
                                        "LANDS", "MANA", "READY", "SICK", "TAPPED"};

/* moves, and their letters in the Python engine */
enum { MV_N, MV_M, MV_S, MV_P, MV_D, MV_J, MV_T, MV_L, MV_A, MV_B, MV_XM, MV_XL, MV_XC, N_MOVES };
static const char *MOVE_NAMES[N_MOVES] = {"N", "M", "S", "P", "D", "J", "T", "L", "A", "B", "XM", "XL", "XC"};
#define MAX_MOVES 8

typedef struct {
    int first_player_draws, instant_bolts, max_hand, bolt_damage, devil_power, life_payment;
} Rules;

typedef struct {
    const uint8_t *library[2];
    Py_ssize_t library_size[2];
    Rules rules;
} Deal;

typedef int State[STATE_SIZE];

/* ---- the engine ----------------------------------------------------------- */
static int legal_moves(const Deal *g, const int *s, int *out) {
    int n = 0, phase = s[PHASE];
    if (phase == OVER) return 0;
    int a = BASE[s[ACTIVE]], d = BASE[1 - s[ACTIVE]];
    switch (phase) {
    case MAIN:
        if (!s[LAND_PLAYED] && s[a + HAND_M]) out[n++] = MV_M;
        if (s[a + MANA]) {
            if (s[a + HAND_C]) out[n++] = MV_S;
            if (s[a + HAND_L]) {
                if (s[d + READY]) out[n++] = MV_D;
                if (s[d + TAPPED]) out[n++] = MV_T;
                out[n++] = MV_L;
            }
        }
        out[n++] = MV_N;
        return n;
    case ATTACK:
        if (s[a + READY]) out[n++] = MV_A;
        out[n++] = MV_N;
        return n;
    case RESPOND:
        if (s[d + MANA] && s[d + HAND_L] && g->rules.instant_bolts) {
            if (s[ATTACKERS]) out[n++] = MV_T;
            if (s[a + SICK]) out[n++] = MV_J;
            if (s[a + READY]) out[n++] = MV_D;
            out[n++] = MV_L;
        }
        out[n++] = MV_N;
        return n;
    case BLOCK:
        if (s[ATTACKERS] && s[d + READY]) out[n++] = MV_B;
        out[n++] = MV_N;
        return n;
    case PAY:
        out[n++] = MV_N;
        if (s[d + LIFE] > g->rules.life_payment) out[n++] = MV_P;
        return n;
    default: /* DISCARD */
        for (int c = 0; c < 3; c++)
            if (s[a + HAND_M + c]) out[n++] = MV_XM + c;
        return n;
    }
}

static void end_game(int *s, int winner) {
    s[PHASE] = OVER;
    s[WINNER] = winner;
}

static int hand(const int *s, int b) { return s[b + HAND_M] + s[b + HAND_L] + s[b + HAND_C]; }

static void begin_turn(const Deal *g, int *s) {
    int player = 1 - s[ACTIVE], b = BASE[player];
    s[ACTIVE] = player;
    s[TURN] += 1;
    s[LAND_PLAYED] = 0;
    s[b + READY] += s[b + TAPPED];
    s[b + TAPPED] = 0;
    s[b + MANA] = s[b + LANDS];
    s[PHASE] = MAIN;
    if (s[TURN] == 1 && !g->rules.first_player_draws) return;
    int position = s[b + LIB];
    if (position >= g->library_size[player]) {
        end_game(s, 1 - player);
        return;
    }
    s[b + HAND_M + g->library[player][position]] += 1;
    s[b + LIB] = position + 1;
}

static void end_turn(const Deal *g, int *s, int a) {
    s[a + READY] += s[a + SICK];
    s[a + SICK] = 0;
    begin_turn(g, s);
}

static void combat_damage(const Deal *g, int *s, int a, int d) {
    int attackers = s[ATTACKERS];
    s[ATTACKERS] = 0;
    s[a + TAPPED] += attackers;
    s[d + LIFE] -= g->rules.devil_power * attackers;
    if (s[d + LIFE] <= 0)
        end_game(s, s[ACTIVE]);
    else if (hand(s, a) > g->rules.max_hand)
        s[PHASE] = DISCARD;
    else
        end_turn(g, s, a);
}

static void apply(const Deal *g, int *s, int move) {
    int a = BASE[s[ACTIVE]], d = BASE[1 - s[ACTIVE]];
    switch (s[PHASE]) {
    case MAIN:
        if (move == MV_N) {
            s[PHASE] = ATTACK;
        } else if (move == MV_M) {
            s[a + HAND_M] -= 1;
            s[a + LANDS] += 1;
            s[a + MANA] += 1;
            s[LAND_PLAYED] = 1;
        } else if (move == MV_S) {
            s[a + HAND_C] -= 1;
            s[a + MANA] -= 1;
            s[a + SICK] += 1;
            s[PHASE] = PAY;
        } else { /* L, D or T */
            s[a + HAND_L] -= 1;
            s[a + MANA] -= 1;
            if (move == MV_L) {
                s[d + LIFE] -= g->rules.bolt_damage;
                if (s[d + LIFE] <= 0) end_game(s, s[ACTIVE]);
            } else if (move == MV_D) {
                s[d + READY] -= 1;
            } else {
                s[d + TAPPED] -= 1;
            }
        }
        return;
    case PAY:
        if (move == MV_P) {
            s[d + LIFE] -= g->rules.life_payment;
            s[a + SICK] -= 1;
            if (s[d + LIFE] <= 0) {
                end_game(s, s[ACTIVE]);
                return;
            }
        }
        s[PHASE] = MAIN;
        return;
    case ATTACK:
        if (move == MV_A) {
            s[a + READY] -= 1;
            s[ATTACKERS] += 1;
        } else {
            s[PHASE] = RESPOND;
        }
        return;
    case RESPOND:
        if (move == MV_N) {
            s[PHASE] = BLOCK;
            return;
        }
        s[d + HAND_L] -= 1;
        s[d + MANA] -= 1;
        if (move == MV_L) {
            s[a + LIFE] -= g->rules.bolt_damage;
            if (s[a + LIFE] <= 0) end_game(s, 1 - s[ACTIVE]);
        } else if (move == MV_T) {
            s[ATTACKERS] -= 1;
        } else if (move == MV_J) {
            s[a + SICK] -= 1;
        } else {
            s[a + READY] -= 1;
        }
        return;
    case BLOCK:
        if (move == MV_B) {
            s[ATTACKERS] -= 1;
            s[d + READY] -= 1;
        } else {
            combat_damage(g, s, a, d);
        }
        return;
    default: /* DISCARD */
        s[a + HAND_M + (move - MV_XM)] -= 1;
        if (hand(s, a) <= g->rules.max_hand) end_turn(g, s, a);
        return;
    }
}

/* Play every decision point that offers a single move. */
static void settle(const Deal *g, int *s) {
    int moves[MAX_MOVES];
    for (;;) {
        int a = BASE[s[ACTIVE]], d = BASE[1 - s[ACTIVE]], move = MV_N;
        switch (s[PHASE]) {
        case MAIN:
            if ((!s[LAND_PLAYED] && s[a + HAND_M]) || (s[a + MANA] && (s[a + HAND_C] || s[a + HAND_L]))) return;
            break;
        case ATTACK:
            if (s[a + READY]) return;
            break;
        case RESPOND:
            if (s[d + MANA] && s[d + HAND_L] && g->rules.instant_bolts) return;
            break;
        case BLOCK:
            if (s[ATTACKERS] && s[d + READY]) return;
            break;
        case PAY:
            if (s[d + LIFE] > g->rules.life_payment) return;
            break;
        case DISCARD:
            if (legal_moves(g, s, moves) != 1) return;
            move = moves[0];
            break;
        default:
            return;
        }
        apply(g, s, move);
    }
}

static void step(const Deal *g, const int *s, int move, int *out) {
    memcpy(out, s, sizeof(State));
    apply(g, out, move);
    settle(g, out);
}

static int maximiser_moves(const int *s) {
    int defender = s[PHASE] == PAY || s[PHASE] == RESPOND || s[PHASE] == BLOCK;
    return (s[ACTIVE] == 0) != defender;
}

/* ---- the transposition table ------------------------------------------------ */
typedef struct {
    uint8_t key[STATE_SIZE];
    int8_t lower, upper;
    uint8_t generation; /* the search that stored the entry; 0: never used */
    uint8_t work;       /* bit length of the node count of the entry's subtree */
    uint8_t pad[2];
} Entry;

/* One table for the module, in its module state, kept between searches: a
 * search takes the next generation number, and entries of older generations
 * count as empty, so a new search starts with an empty table without clearing
 * it. Its size is the caller's table_bits: a search asking another size frees
 * the table and allocates one of that size; the module's m_free frees it. */
typedef struct {
    Entry *entries;
    uint64_t mask; /* bucket index mask (in units of entries, a multiple of BUCKET) */
    int bits;
    uint8_t generation;
} Table;

#define BUCKET 2 /* entries of 32 bytes: a bucket is one 64-byte cache line */

/* A byte per field: parse_state admits only fields within KEY_MIN..KEY_MAX (a signed byte), so no two states
 * share a key. */
#define KEY_MIN (-128)
#define KEY_MAX 127

static void pack(const int *s, uint8_t *key) {
    for (int i = 0; i < STATE_SIZE; i++) key[i] = (uint8_t)(int8_t)s[i];
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_key(const uint8_t *key) {
    uint64_t w[4] = {0, 0, 0, 0};
    memcpy(w, key, STATE_SIZE);
    return mix(w[0] ^ mix(w[1] ^ mix(w[2] ^ mix(w[3]))));
}

/* The bucket of a key: the parent computes its children's and asks the processor for them (prefetch) before
 * searching the first, so the table's cache misses overlap instead of coming one after the other. */
static Entry *bucket_of(const Table *t, const uint8_t *key) {
    Entry *bucket = t->entries + (hash_key(key) & t->mask);
    __builtin_prefetch(bucket);
    return bucket;
}

static Entry *probe(const Table *t, Entry *bucket, const uint8_t *key) {
    for (int i = 0; i < BUCKET; i++)
        if (bucket[i].generation == t->generation && memcmp(bucket[i].key, key, STATE_SIZE) == 0) return bucket + i;
    return NULL;
}

static void store(const Table *t, Entry *bucket, const uint8_t *key, int lower, int upper, uint64_t work) {
    Entry *slot = NULL;
    for (int i = 0; i < BUCKET && !slot; i++)
        if (bucket[i].generation != t->generation || memcmp(bucket[i].key, key, STATE_SIZE) == 0) slot = bucket + i;
    if (!slot) {
        slot = bucket;
        for (int i = 1; i < BUCKET; i++)
            if (bucket[i].work < slot->work) slot = bucket + i;
    }
    int bits = 0;
    while (work) {
        bits++;
        work >>= 1;
    }
    memcpy(slot->key, key, STATE_SIZE);
    slot->lower = (int8_t)lower;
    slot->upper = (int8_t)upper;
    slot->generation = t->generation;
    slot->work = (uint8_t)bits;
}

/* ---- the search ----------------------------------------------------------- */
enum { RUNNING, CAPPED, INTERRUPTED };

typedef struct {
    const Deal *deal;
    Table *table;
    long long nodes, leaves, cap; /* cap < 0: none */
    int stop;
} Search;

#define SIGNAL_CHECK_MASK ((1LL << 20) - 1)

static int leaf(Search *x) {
    x->leaves++;
    if (x->cap >= 0 && x->leaves > x->cap) x->stop = CAPPED;
    return x->stop;
}

/* The search's move order (see the header): each move's rank, lower first. By window: main phase M, T, D, L, S, N
 * (the bolts in the respond window's order, then the creature, then the pass); pay P, N; attack A, N; respond T, J,
 * D, L, N (the engine's order); block B, N; discard XC, XL, XM. */
static const int SEARCH_RANK[N_MOVES] = {
    [MV_M] = 0, [MV_T] = 1, [MV_J] = 2, [MV_D] = 3, [MV_L] = 4, [MV_S] = 5, [MV_P] = 6,
    [MV_A] = 7, [MV_B] = 8, [MV_XC] = 9, [MV_XL] = 10, [MV_XM] = 11, [MV_N] = 12,
};

static void search_order(int *moves, int n) {
    for (int i = 1; i < n; i++) {
        int move = moves[i], j = i;
        for (; j > 0 && SEARCH_RANK[moves[j - 1]] > SEARCH_RANK[move]; j--) moves[j] = moves[j - 1];
        moves[j] = move;
    }
}

/* 1 or -1 when the player to act at s wins at once by bolting the opponent (see the header), else 0. */
static int forced_win(const Deal *g, const int *s) {
    int a = BASE[s[ACTIVE]], d = BASE[1 - s[ACTIVE]], damage = g->rules.bolt_damage;
    if (damage <= 0) return 0;
    if (s[PHASE] == MAIN || s[PHASE] == PAY) {
        int mana = s[a + MANA] + (!s[LAND_PLAYED] && s[a + HAND_M] ? 1 : 0);
        int bolts = s[a + HAND_L] < mana ? s[a + HAND_L] : mana;
        if (s[d + LIFE] <= damage * bolts) return s[ACTIVE] == 0 ? 1 : -1;
    } else if (s[PHASE] == RESPOND && g->rules.instant_bolts) {
        int bolts = s[d + HAND_L] < s[d + MANA] ? s[d + HAND_L] : s[d + MANA];
        if (s[a + LIFE] <= damage * bolts) return s[ACTIVE] == 0 ? -1 : 1;
    }
    return 0;
}

/* A position about to be searched: its state, its value for player 0 when known without a search (1 or -1: the
 * game is over, or the player to act wins at once by bolting; else 0) and, for a main-phase position of unknown
 * value, its key and its table bucket (asked for in advance); otherwise bucket is NULL and the table is not used
 * there. */
typedef struct {
    State s;
    int value;
    uint8_t key[STATE_SIZE];
    Entry *bucket;
} Position;

static void position(Search *x, Position *p) {
    p->bucket = NULL;
    p->value = p->s[PHASE] == OVER ? (p->s[WINNER] == 0 ? 1 : -1) : forced_win(x->deal, p->s);
    if (p->value || p->s[PHASE] != MAIN) return; /* the table keeps main-phase positions only */
    pack(p->s, p->key);
    p->bucket = bucket_of(x->table, p->key);
}

static int search(Search *x, const Position *p, int alpha, int beta) {
    const int *s = p->s;
    x->nodes++;
    if ((x->nodes & SIGNAL_CHECK_MASK) == 0 && PyErr_CheckSignals() < 0) x->stop = INTERRUPTED;
    if (x->stop) return 0;
    if (p->value) {
        leaf(x);
        return p->value;
    }
    Entry *entry = p->bucket ? probe(x->table, p->bucket, p->key) : NULL;
    if (entry) {
        int lower = entry->lower, upper = entry->upper;
        if (lower >= beta || lower == upper) return lower;
        if (upper <= alpha) return upper;
        if (lower > alpha) alpha = lower;
        if (upper < beta) beta = upper;
    }
    int alpha0 = alpha, beta0 = beta, moves[MAX_MOVES], n = legal_moves(x->deal, s, moves);
    if (moves[0] == MV_M) n = 1; /* a land first: weakly dominant (see the header) */
    search_order(moves, n);
    int maximise = maximiser_moves(s), win = maximise ? 1 : -1, best = -2 * win;
    long long nodes0 = x->nodes;
    Position children[MAX_MOVES];
    for (int i = 0; i < n && best != win; i++) {
        step(x->deal, s, moves[i], children[i].s);
        position(x, children + i);
        if (children[i].value == win) { /* a move that wins at once: counted as a leaf searched */
            x->nodes++;
            best = win;
            if (leaf(x)) return 0;
        }
    }
    for (int i = 0; i < n && best != win; i++) {
        int v = search(x, children + i, alpha, beta);
        if (x->stop) return 0;
        if (maximise ? v > best : v < best) {
            best = v;
            if (maximise && v > alpha) alpha = v;
            if (!maximise && v < beta) beta = v;
            if (alpha >= beta) break;
        }
    }
    int lower = -1, upper = 1;
    if (best <= alpha0)
        upper = best;
    else if (best >= beta0)
        lower = best;
    else
        lower = upper = best;
    if (p->bucket) store(x->table, p->bucket, p->key, lower, upper, (uint64_t)(x->nodes - nodes0));
    return best;
}

static int value_of(Search *x, const int *s) {
    Position p;
    memcpy(p.s, s, sizeof(State));
    position(x, &p);
    return search(x, &p, -1, 1);
}

/* The first best move in the engine's move order (Searcher.best_move) at a position of known value for player 0;
 * -1 when stopped. Every move of the losing side loses, so its first best move is its first move; the winning side
 * plays its first winning move, and when none of the others wins, the last move is the winning one. */
static int best_move(Search *x, const int *s, int value) {
    int moves[MAX_MOVES], n = legal_moves(x->deal, s, moves);
    if (value != (maximiser_moves(s) ? 1 : -1)) return moves[0];
    State child;
    for (int i = 0; i < n - 1; i++) {
        step(x->deal, s, moves[i], child);
        int v = value_of(x, child);
        if (x->stop) return -1;
        if (v == value) return moves[i];
    }
    return moves[n - 1];
}

/* ---- Python glue ---------------------------------------------------------- */
static int parse_deal(PyObject *libraries, PyObject *rules, Deal *g) {
    if (!PyTuple_Check(libraries) || PyTuple_GET_SIZE(libraries) != 2) {
        PyErr_SetString(PyExc_TypeError, "libraries must be a tuple of two bytes objects");
        return -1;
    }
    for (int p = 0; p < 2; p++) {
        PyObject *lib = PyTuple_GET_ITEM(libraries, p);
        if (!PyBytes_Check(lib)) {
            PyErr_SetString(PyExc_TypeError, "each library must be bytes of card codes");
            return -1;
        }
        g->library[p] = (const uint8_t *)PyBytes_AS_STRING(lib);
        g->library_size[p] = PyBytes_GET_SIZE(lib);
        for (Py_ssize_t i = 0; i < g->library_size[p]; i++)
            if (g->library[p][i] > 2) {
                PyErr_Format(PyExc_ValueError, "library %d holds card code %d at %zd; codes are 0, 1, 2", p,
                             g->library[p][i], i);
                return -1;
            }
    }
    return PyArg_ParseTuple(rules, "ppiiii;rules must be (first_player_draws, instant_bolts, max_hand, "
                                   "bolt_damage, devil_power, life_payment)",
                            &g->rules.first_player_draws, &g->rules.instant_bolts, &g->rules.max_hand,
                            &g->rules.bolt_damage, &g->rules.devil_power, &g->rules.life_payment)
               ? 0
               : -1;
}

static int parse_state(PyObject *seq, int *s) {
    PyObject *fast = PySequence_Fast(seq, "state must be a sequence of 26 ints");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != STATE_SIZE) {
        PyErr_Format(PyExc_ValueError, "state must hold %d fields, got %zd", STATE_SIZE, PySequence_Fast_GET_SIZE(fast));
        Py_DECREF(fast);
        return -1;
    }
    for (int i = 0; i < STATE_SIZE; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < KEY_MIN || v > KEY_MAX) {
            if (i < BASE[0])
                PyErr_Format(PyExc_ValueError, "state field %d (%s) = %ld lies outside %d..%d, what the table key's "
                             "byte holds", i, GAME_FIELDS[i], v, KEY_MIN, KEY_MAX);
            else
                PyErr_Format(PyExc_ValueError, "state field %d (player %d's %s) = %ld lies outside %d..%d, what the "
                             "table key's byte holds", i, i >= BASE[1], PLAYER_FIELDS[(i - BASE[0]) % (BASE[1] - BASE[0])],
                             v, KEY_MIN, KEY_MAX);
            Py_DECREF(fast);
            return -1;
        }
        s[i] = (int)v;
    }
    Py_DECREF(fast);
    if (s[PHASE] < MAIN || s[PHASE] > OVER || (s[ACTIVE] != 0 && s[ACTIVE] != 1)) {
        PyErr_SetString(PyExc_ValueError, "state has an unknown phase or active player");
        return -1;
    }
    return 0;
}

static PyObject *state_tuple(const int *s) {
    PyObject *t = PyTuple_New(STATE_SIZE);
    if (!t) return NULL;
    for (int i = 0; i < STATE_SIZE; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(s[i]));
    return t;
}

/* A zeroed table of ``entries`` entries; on Linux, asked for in 2 MiB pages. A probe lands anywhere in the
 * table (8 MiB by default, up to 32 GiB), so with 4 KiB pages nearly every probe also misses the processor's cache
 * of address translations: huge pages made the search in a 128 MiB table about 1.4 times faster. The kernel may
 * refuse the advice (its transparent huge pages set to "never"); the table then works as before. */
static Entry *new_table(size_t entries) {
    size_t bytes = entries * sizeof(Entry);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)1 << 21;
    if (bytes >= huge) {
        void *p = NULL;
        if (posix_memalign(&p, huge, bytes) != 0) return NULL;
        (void)madvise(p, bytes, MADV_HUGEPAGE);
        memset(p, 0, bytes);
        return p;
    }
#endif
    return calloc(entries, sizeof(Entry));
}

static int open_search(PyObject *module, Search *x, const Deal *g, long long cap, int table_bits) {
    if (table_bits < 4 || table_bits > 30) {
        PyErr_Format(PyExc_ValueError, "table_bits must lie in 4..30, got %d", table_bits);
        return -1;
    }
    Table *t = PyModule_GetState(module);
    if (!t) return -1;
    if (t->bits != table_bits) {
        free(t->entries);
        t->entries = new_table((size_t)1 << table_bits);
        if (!t->entries) {
            t->bits = 0;
            PyErr_NoMemory();
            return -1;
        }
        t->bits = table_bits;
        t->mask = (((uint64_t)1 << table_bits) - 1) & ~(uint64_t)(BUCKET - 1);
        t->generation = 0;
    }
    if (++t->generation == 0) { /* the generation numbers wrapped: really clear the table */
        memset(t->entries, 0, ((size_t)1 << table_bits) * sizeof(Entry));
        t->generation = 1;
    }
    memset(x, 0, sizeof(*x));
    x->deal = g;
    x->cap = cap;
    x->table = t;
    return 0;
}

/* Close the search; NULL with the exception set when Ctrl-C interrupted it. */
static PyObject *close_search(Search *x, PyObject *result) {
    if (x->stop == INTERRUPTED) {
        Py_XDECREF(result);
        if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
        return NULL;
    }
    return result;
}

static PyObject *py_legal_moves(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *libraries, *rules, *state;
    Deal g;
    State s;
    int moves[MAX_MOVES];
    if (!PyArg_ParseTuple(args, "OOO", &libraries, &rules, &state)) return NULL;
    if (parse_deal(libraries, rules, &g) < 0 || parse_state(state, s) < 0) return NULL;
    int n = legal_moves(&g, s, moves);
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, PyUnicode_FromString(MOVE_NAMES[moves[i]]));
    return t;
}

static PyObject *py_step(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *libraries, *rules, *state;
    const char *name;
    Deal g;
    State s, out;
    int moves[MAX_MOVES];
    if (!PyArg_ParseTuple(args, "OOOs", &libraries, &rules, &state, &name)) return NULL;
    if (parse_deal(libraries, rules, &g) < 0 || parse_state(state, s) < 0) return NULL;
    int n = legal_moves(&g, s, moves);
    for (int i = 0; i < n; i++)
        if (strcmp(MOVE_NAMES[moves[i]], name) == 0) {
            step(&g, s, moves[i], out);
            return state_tuple(out);
        }
    return PyErr_Format(PyExc_ValueError, "move %s is not legal here", name);
}

static PyObject *py_value(PyObject *self, PyObject *args) {
    PyObject *libraries, *rules, *state;
    long long cap;
    int table_bits;
    Deal g;
    State s;
    Search x;
    if (!PyArg_ParseTuple(args, "OOOLi", &libraries, &rules, &state, &cap, &table_bits)) return NULL;
    if (parse_deal(libraries, rules, &g) < 0 || parse_state(state, s) < 0) return NULL;
    if (open_search(self, &x, &g, cap, table_bits) < 0) return NULL;
    int v = value_of(&x, s);
    PyObject *value = x.stop == CAPPED ? Py_NewRef(Py_None) : PyLong_FromLong(v);
    return close_search(&x, Py_BuildValue("(NLL)", value, x.nodes, x.leaves));
}

static int at_cutoff(const int *s, int life) {
    return s[BASE[0] + LIFE] <= life || s[BASE[1] + LIFE] <= life;
}

static PyObject *py_play(PyObject *self, PyObject *args) {
    PyObject *libraries, *rules, *state;
    long long cap;
    int table_bits, stop_life;
    Deal g;
    State s, next;
    Search x;
    if (!PyArg_ParseTuple(args, "OOOLii", &libraries, &rules, &state, &cap, &table_bits, &stop_life)) return NULL;
    if (parse_deal(libraries, rules, &g) < 0 || parse_state(state, s) < 0) return NULL;
    if (open_search(self, &x, &g, cap, table_bits) < 0) return NULL;
    settle(&g, s);
    int value = 0; /* the value of the positions of the game played, for player 0, once searched */
    while (s[PHASE] != OVER && !at_cutoff(s, stop_life)) {
        if (!value) value = value_of(&x, s);
        int move = x.stop ? -1 : best_move(&x, s, value);
        if (move < 0) break;
        step(&g, s, move, next);
        memcpy(s, next, sizeof(State));
    }
    PyObject *winner = s[PHASE] == OVER && s[WINNER] != NO_WINNER ? PyLong_FromLong(s[WINNER]) : Py_NewRef(Py_None);
    return close_search(&x, Py_BuildValue("(NiLLON)", winner, s[TURN], x.nodes, x.leaves,
                                          x.stop == CAPPED ? Py_True : Py_False, state_tuple(s)));
}

static PyMethodDef methods[] = {
    {"legal_moves", py_legal_moves, METH_VARARGS,
     "legal_moves(libraries, rules, state) -> the deciding player's legal moves, in search order"},
    {"step", py_step, METH_VARARGS, "step(libraries, rules, state, move) -> the settled state after move"},
    {"value", py_value, METH_VARARGS,
     "value(libraries, rules, state, cap, table_bits) -> (1, -1 or None when capped, nodes, leaves)"},
    {"play", py_play, METH_VARARGS,
     "play(libraries, rules, state, cap, table_bits, stop_life) -> (winner or None, turn, nodes, leaves, capped, "
     "state): play until the game ends or a player has stop_life life or less"},
    {NULL, NULL, 0, NULL},
};

/* The module's table goes with the module (a worker that imported it gets the memory back at its end). */
static void free_table(void *module) {
    Table *t = PyModule_GetState((PyObject *)module);
    if (!t) return;
    free(t->entries);
    memset(t, 0, sizeof(*t));
}

/* Multi-phase initialisation: the interpreter keeps no reference of its own to such a module (it would keep one to
 * a single-phase module until it ends), so the module, and with it the table, goes when its last user drops it. */
static PyModuleDef_Slot slots[] = {{0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_exact", "Exact perfect-information search of the mini Magic game (C).", sizeof(Table),
    methods, slots, NULL, NULL, free_table,
};

PyMODINIT_FUNC PyInit__exact(void) { return PyModuleDef_Init(&module); }
