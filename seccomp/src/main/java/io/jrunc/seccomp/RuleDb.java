package io.jrunc.seccomp;

import java.util.HashMap;

/**
 * One architecture's rule database, behaving as libseccomp 2.5.4's (src/db.c: db_rule_add,
 * _db_rule_gen_64/_32, _db_tree_prune, _db_tree_add, _db_tree_remove, _db_node_put): the argument
 * "chain tree" of every syscall, built rule by rule with the same merging, pruning and quirks, because
 * the decisions of the final program are those of that tree and not of the rules as written.
 *
 * <p>The tree is a DAG of nodes. A node tests one 32-bit word of seccomp_data: {@code (word & mask) OP
 * datum}, OP one of ==, >, >= (unsigned); the other operators are rewritten into these with the
 * action on the false side. A node has, for each outcome, either a next level ({@code nxtT}/{@code
 * nxtF}), or an action, or nothing. Nodes on one level are a doubly linked list, ordered by
 * libseccomp's node priority (argument, hi/lo word, operator, datum). Evaluating a level tries its
 * nodes in order: an outcome with an action returns it, with a next level evaluates that level (and
 * falling off its end resumes with the next node of this level), with nothing goes on to the next
 * node; falling off the top level gives the default action (gen_bpf.c, _gen_bpf_chain with nxt_jump).
 *
 * <p>Reference counts, level links and the order of updates are kept as libseccomp has them, since the
 * decisions depend on them (shared nodes updated in place, a removal leaving a node reachable from a
 * second parent, and so on). Errors are returned as negative errno values as db.c does (-EEXIST).
 */
final class RuleDb {
    static final int EEXIST = 17;
    private static final int PRI_MASK_CHAIN = 0xffff;

    // enum scmp_compare
    static final int NE = 1, LT = 2, LE = 3, EQ = 4, GE = 5, GT = 6, MASKED_EQ = 7;

    private static final int IST_MATCH = 0x1, IST_MATCH_ONCE = 0x2, IST_X_FINISHED = 0x10,
            IST_N_FINISHED = 0x20, IST_X_PREFIX = 0x100, IST_N_PREFIX = 0x200;
    private static final int IST_M_MATCHSET = IST_MATCH | IST_MATCH_ONCE;
    private static final int IST_M_REDUNDANT = IST_MATCH | IST_X_FINISHED | IST_N_PREFIX;

    static final class Node {
        int arg;
        boolean hi;
        int offset;
        int op;
        int opOrig;
        int mask;
        int datum;
        long datumFull;
        boolean actTFlg, actFFlg;
        int actT, actF;
        Node lvlPrv, lvlNxt, nxtT, nxtF;
        int refcnt;
    }

    /** A syscall's entry (struct db_sys_list): an unconditional action, or a chain tree. */
    static final class Entry {
        final int num;
        Node chains;
        int action;
        boolean valid = true;
        /** node_cnt and priority as db.c keeps them (gen_bpf orders the syscalls by priority). */
        int nodeCnt;
        int priority;
        /** The compiler's index of this entry's chain code (-1: none yet). */
        int chainIndex = -1;

        Entry(int num) {
            this.num = num;
        }
    }

    /** One condition as db_col_rule_add stores it: mask all ones except for MASKED_EQ. */
    record Cond(int arg, int op, long mask, long datum) {}

    private static final int LOW = 1024;

    private final boolean bits64;
    /** Real syscall numbers from base to base + 1023 (x32's base is its bit 30), by number. */
    private final int base;
    private final Entry[] low = new Entry[LOW];
    /** Other real numbers (ARM's private calls at 0x0f0000). */
    private final HashMap<Integer, Entry> high = new HashMap<>();
    private int count;
    /** Pseudo syscalls (names libseccomp knows but this architecture lacks): never in the program. */
    final HashMap<String, Entry> pseudo = new HashMap<>();

    RuleDb(boolean bits64, int base) {
        this.bits64 = bits64;
        this.base = base;
    }

    /** The entry of real syscall nr, or null. */
    Entry get(int nr) {
        int i = nr - base;
        if (i >= 0 && i < LOW) {
            return low[i];
        }
        return high.isEmpty() ? null : high.get(nr);
    }

    /** The real entries by ascending number (as unsigned, as db.c keeps its list). */
    Entry[] sorted() {
        Entry[] out = new Entry[count];
        int n = 0;
        for (int i = 0; i < LOW; i++) {
            if (low[i] != null) {
                out[n++] = low[i];
            }
        }
        int start = n;
        for (Entry e : high.values()) {
            out[n++] = e;
        }
        for (int i = start + 1; i < n; i++) {
            Entry e = out[i];
            int j = i - 1;
            while (j >= start && Integer.compareUnsigned(out[j].num, e.num) > 0) {
                out[j + 1] = out[j];
                j--;
            }
            out[j + 1] = e;
        }
        if (start > 0 && n > start && Integer.compareUnsigned(out[start].num, base) < 0) {
            // Numbers below base (none in libseccomp's tables): keep the list ordered anyway.
            for (int i = 1; i < n; i++) {
                Entry e = out[i];
                int j = i - 1;
                while (j >= 0 && Integer.compareUnsigned(out[j].num, e.num) > 0) {
                    out[j + 1] = out[j];
                    j--;
                }
                out[j + 1] = e;
            }
        }
        return out;
    }

    /** db_rule_add for a real syscall number. conds is indexed by argument (null: none). */
    int add(int nr, int action, Cond[] conds) {
        Entry e = get(nr);
        if (e == null) {
            e = generate(nr, action, conds);
            int i = nr - base;
            if (i >= 0 && i < LOW) {
                low[i] = e;
            } else {
                high.put(nr, e);
            }
            count++;
            return 0;
        }
        if (conds == null && e.chains == null) {
            return 0; // the first unconditional rule stays (and its priority: no chain nodes either way)
        }
        return add(e, action, conds);
    }

    /**
     * db_rule_add of an unconditional rule on a real number, which never fails: {@link #add} with no
     * conditions, the common case (most of a profile's names) without its calls.
     */
    void addUnconditional(int nr, int action) {
        int i = nr - base;
        if (i >= 0 && i < LOW) {
            Entry e = low[i];
            if (e == null) {
                // what generate makes of no conditions
                e = new Entry(nr);
                e.action = action;
                e.priority = PRI_MASK_CHAIN;
                low[i] = e;
                count++;
                return;
            }
            if (e.chains == null) {
                return; // the first unconditional rule stays
            }
        }
        add(nr, action, null);
    }

    /** db_rule_add for a pseudo syscall number (a negative __PNR_* value): only its errors matter. */
    int addPseudo(String name, int action, Cond[] conds) {
        Entry e = pseudo.get(name);
        if (e == null) {
            pseudo.put(name, generate(-1, action, conds));
            return 0;
        }
        return add(e, action, conds);
    }

    private int add(Entry sIter, int action, Cond[] conds) {
        Entry sNew = generate(sIter.num, action, conds);
        int rc = addChains(sIter, sNew, action);
        if (rc == 0) {
            sIter.priority = (sIter.priority & ~PRI_MASK_CHAIN) | (PRI_MASK_CHAIN - sIter.nodeCnt);
        }
        return rc;
    }

    private int addChains(Entry sIter, Entry sNew, int action) {
        boolean rmFlag = false;
        while (true) {
            if (sIter.chains == null) {
                if (rmFlag || !sIter.valid) {
                    sIter.chains = sNew.chains;
                    sIter.action = sNew.action;
                    sIter.nodeCnt = sNew.nodeCnt;
                    if (sIter.valid) {
                        sIter.priority = sNew.priority;
                    }
                    sIter.valid = true;
                    return 0;
                }
                // The existing unconditional entry covers the new rule, whatever its action.
                treePut(new Slot(sNew.chains));
                return 0;
            } else if (sNew.chains == null) {
                // An unconditional rule replaces every conditional one.
                treePut(chainsSlot(sIter));
                sIter.chains = null;
                sIter.nodeCnt = 0;
                sIter.action = action;
                return 0;
            }
            State state = new State();
            state.action = action;
            state.sx = sIter;
            int rc = prune(chainsSlot(sIter), sNew.chains, state);
            if (rc > 0) {
                rmFlag = true;
                sIter.nodeCnt -= rc;
                if (sIter.chains == null) {
                    continue;
                }
            } else if ((state.flags & IST_M_REDUNDANT) == IST_M_REDUNDANT) {
                treePut(new Slot(sNew.chains));
                return 0;
            }
            state = new State();
            state.sx = sIter;
            rc = treeAdd(chainsSlot(sIter), sNew.chains, state);
            if (rc < 0) {
                return rc;
            }
            sIter.nodeCnt += sNew.nodeCnt;
            sIter.nodeCnt -= treePut(new Slot(sNew.chains));
            return 0;
        }
    }

    // ---- rule generation (_db_rule_gen_64 / _db_rule_gen_32) ----

    private Entry generate(int nr, int action, Cond[] conds) {
        Entry s = new Entry(nr);
        Node first = conds == null ? null : (bits64 ? gen64(conds, action) : gen32(conds, action));
        if (conds != null) {
            for (Cond c : conds) {
                if (c == null) {
                    continue;
                }
                if (bits64) {
                    if (!(c.op == MASKED_EQ && hi(c.mask) == 0 && lo(c.mask) == 0)) {
                        s.nodeCnt += (c.op == EQ || c.op == NE || c.op == MASKED_EQ) ? 2 : 3;
                    }
                } else if (!(c.op == MASKED_EQ && lo(c.mask) == 0)) {
                    s.nodeCnt++;
                }
            }
        }
        s.priority = PRI_MASK_CHAIN - s.nodeCnt;
        if (first == null) {
            s.action = action;
        } else {
            s.chains = get(first);
        }
        return s;
    }

    private static int lo(long v) {
        return (int) v;
    }

    private static int hi(long v) {
        return (int) (v >>> 32);
    }

    private static Node node(int arg, boolean hiWord, int op, int opOrig, int mask, int datum, long full) {
        Node n = new Node();
        n.arg = arg;
        n.hi = hiWord;
        n.offset = 16 + 8 * arg + (hiWord ? 4 : 0);
        n.op = op;
        n.opOrig = opOrig;
        n.mask = mask;
        n.datum = datum & mask;
        n.datumFull = full;
        return n;
    }

    private static Node gen64(Cond[] conds, int action) {
        Node first = null;
        Node p0 = null, p1 = null, p2 = null;
        int opPrev = 0;
        Node c0 = null, c1 = null, c2 = null;
        for (int i = 0; i < 6; i++) {
            Cond c = conds[i];
            if (c == null) {
                continue;
            }
            if (c.op == MASKED_EQ && hi(c.mask) == 0 && lo(c.mask) == 0) {
                continue;
            }
            int arg = c.arg;
            c2 = null;
            switch (c.op) {
                case GT, GE, LE, LT -> {
                    c0 = node(arg, true, GT, c.op, hi(c.mask), hi(c.datum), c.datum);
                    c1 = node(arg, true, EQ, c.op, hi(c.mask), hi(c.datum), c.datum);
                    int loOp = (c.op == GT || c.op == LE) ? GT : GE;
                    c2 = node(arg, false, loOp, c.op, lo(c.mask), lo(c.datum), c.datum);
                    c0.nxtF = get(c1);
                    c1.nxtT = get(c2);
                }
                default -> {
                    int op = c.op == MASKED_EQ ? MASKED_EQ : EQ;
                    c0 = node(arg, true, op, c.op, hi(c.mask), hi(c.datum), c.datum);
                    c1 = node(arg, false, op, c.op, lo(c.mask), lo(c.datum), c.datum);
                    c0.nxtT = get(c1);
                }
            }
            if (p0 != null) {
                switch (opPrev) {
                    case GT, GE -> {
                        p0.nxtT = get(c0);
                        p2.nxtT = get(c0);
                    }
                    case EQ, MASKED_EQ -> p1.nxtT = get(c0);
                    case LE, LT -> {
                        p1.nxtF = get(c0);
                        p2.nxtF = get(c0);
                    }
                    default -> { // NE
                        p0.nxtF = get(c0);
                        p1.nxtF = get(c0);
                    }
                }
            } else {
                first = c0;
            }
            p0 = c0;
            p1 = c1;
            p2 = c2;
            opPrev = c.op;
        }
        if (first == null) {
            return null;
        }
        switch (opPrev) {
            case GT, GE -> {
                p0.actTFlg = true;
                p0.actT = action;
                p2.actTFlg = true;
                p2.actT = action;
            }
            case LE, LT -> {
                p1.actFFlg = true;
                p1.actF = action;
                p2.actFFlg = true;
                p2.actF = action;
            }
            case EQ, MASKED_EQ -> {
                p1.actTFlg = true;
                p1.actT = action;
            }
            default -> {
                p0.actFFlg = true;
                p0.actF = action;
                p1.actFFlg = true;
                p1.actF = action;
            }
        }
        return first;
    }

    private static Node gen32(Cond[] conds, int action) {
        Node first = null, prev = null, cur = null;
        // Which side of the previous node the next condition hangs on (true unless NE/LT/LE).
        boolean tf = false;
        for (int i = 0; i < 6; i++) {
            Cond c = conds[i];
            if (c == null) {
                continue;
            }
            if (c.op == MASKED_EQ && lo(c.mask) == 0) {
                continue;
            }
            int op;
            boolean curTf;
            switch (c.op) {
                case NE -> {
                    op = EQ;
                    curTf = false;
                }
                case LT -> {
                    op = GE;
                    curTf = false;
                }
                case LE -> {
                    op = GT;
                    curTf = false;
                }
                default -> {
                    op = c.op;
                    curTf = true;
                }
            }
            // The high 32 bits of the mask and datum are dropped: only the low word is compared.
            cur = node(c.arg, false, op, c.op, lo(c.mask), lo(c.datum), c.datum);
            if (prev != null) {
                if (tf) {
                    prev.nxtT = get(cur);
                } else {
                    prev.nxtF = get(cur);
                }
            } else {
                first = cur;
            }
            prev = cur;
            tf = curTf;
        }
        if (cur == null) {
            return null;
        }
        if (tf) {
            cur.actTFlg = true;
            cur.actT = action;
        } else {
            cur.actFFlg = true;
            cur.actF = action;
        }
        return first;
    }

    // ---- node ordering (_db_chain_lt / _db_chain_eq) ----

    private static int argPriority(Node a) {
        return (a.arg << 1) + (a.hi ? 1 : 0);
    }

    private static int opPriority(int op) {
        return switch (op) {
            case MASKED_EQ, EQ, NE -> 3;
            case LE, LT -> 2;
            case GE, GT -> 1;
            default -> 0;
        };
    }

    private static boolean lt(Node a, Node b) {
        int aa = argPriority(a), ba = argPriority(b);
        if (aa != ba) {
            return aa < ba;
        }
        int ao = opPriority(a.opOrig), bo = opPriority(b.opOrig);
        if (ao != bo) {
            return ao < bo;
        }
        if (a.opOrig == LE || a.opOrig == LT) {
            return Integer.compareUnsigned(a.datum, b.datum) > 0;
        }
        return Integer.compareUnsigned(a.datum, b.datum) < 0;
    }

    private static boolean eq(Node a, Node b) {
        return argPriority(a) == argPriority(b) && a.op == b.op && a.datum == b.datum && a.mask == b.mask;
    }

    private static boolean leaf(Node n) {
        return n.nxtT == null && n.nxtF == null;
    }

    private static boolean zombie(Node n) {
        return leaf(n) && !n.actTFlg && !n.actFFlg;
    }

    // ---- references ----

    /** A place holding a node pointer (a C {@code struct db_arg_chain_tree **}). */
    private static class Slot {
        Node n;

        Slot(Node n) {
            this.n = n;
        }

        Node get() {
            return n;
        }

        void set(Node v) {
            n = v;
        }
    }

    private static Slot nxtTSlot(Node owner) {
        return new Slot(null) {
            @Override
            Node get() {
                return owner.nxtT;
            }

            @Override
            void set(Node v) {
                owner.nxtT = v;
            }
        };
    }

    private static Slot nxtFSlot(Node owner) {
        return new Slot(null) {
            @Override
            Node get() {
                return owner.nxtF;
            }

            @Override
            void set(Node v) {
                owner.nxtF = v;
            }
        };
    }

    private static Slot chainsSlot(Entry owner) {
        return new Slot(null) {
            @Override
            Node get() {
                return owner.chains;
            }

            @Override
            void set(Node v) {
                owner.chains = v;
            }
        };
    }

    private static Node get(Node n) {
        if (n != null) {
            n.refcnt++;
        }
        return n;
    }

    private static int levelClean(Node node) {
        int cnt = 0;
        Node n = node;
        while (n.lvlPrv != null) {
            n = n.lvlPrv;
        }
        Node start = n;
        while (n != null) {
            int links = (n.lvlPrv != null ? 1 : 0) + (n.lvlNxt != null ? 1 : 0);
            if (n.refcnt > links) {
                return cnt;
            }
            n = n.lvlNxt;
        }
        Slot s = new Slot(start);
        while (s.get() != null) {
            cnt += nodePut(s);
        }
        return cnt;
    }

    private static int treePut(Slot tree) {
        int cnt = nodePut(tree);
        if (tree.get() != null) {
            cnt += levelClean(tree.get());
        }
        return cnt;
    }

    private static int nodePut(Slot slot) {
        Node n = slot.get();
        if (n == null) {
            return 0;
        }
        int cnt = 0;
        if (--n.refcnt == 0) {
            Slot p = new Slot(n.lvlPrv);
            Slot q = new Slot(n.lvlNxt);
            Node nt = n.nxtT, nf = n.nxtF;
            if (p.get() != null) {
                p.get().lvlNxt = null;
            }
            if (q.get() != null) {
                q.get().lvlPrv = null;
            }
            if (p.get() != null) {
                cnt += nodePut(p);
            }
            if (q.get() != null) {
                cnt += nodePut(q);
            }
            if (p.get() != null) {
                p.get().lvlNxt = get(q.get());
            }
            if (q.get() != null) {
                q.get().lvlPrv = get(p.get());
            }
            slot.set(p.get() != null ? p.get() : q.get());
            cnt += treePut(new Slot(nt));
            cnt += treePut(new Slot(nf));
            cnt++;
        }
        return cnt;
    }

    private static int treeRemove(Slot tree, Node node) {
        if (tree == null || tree.get() == null || node == null) {
            return 0;
        }
        int cnt = 0;
        Node c = tree.get();
        while (c.lvlPrv != null) {
            c = c.lvlPrv;
        }
        boolean remove = false;
        do {
            if (c == node) {
                remove = true;
                break;
            }
            cnt += treeRemove(nxtTSlot(c), node);
            cnt += treeRemove(nxtFSlot(c), node);
            if (zombie(c)) {
                remove = true;
                break;
            }
            c = c.lvlNxt;
        } while (c != null && cnt == 0);
        if (!remove) {
            return cnt;
        }
        if (c == tree.get()) {
            tree.set(c.lvlPrv != null ? c.lvlPrv : c.lvlNxt);
        }
        if (c.lvlPrv != null) {
            c.lvlPrv.lvlNxt = c.lvlNxt;
        }
        if (c.lvlNxt != null) {
            c.lvlNxt.lvlPrv = c.lvlPrv;
        }
        c.lvlPrv = null;
        c.lvlNxt = null;
        cnt += nodePut(new Slot(c));
        return cnt;
    }

    private static boolean actCheckFails(Node tree, int action) {
        if (tree == null) {
            return false;
        }
        Node c = tree;
        while (c.lvlPrv != null) {
            c = c.lvlPrv;
        }
        do {
            if (c.actTFlg && c.actT != action) {
                return true;
            }
            if (c.actFFlg && c.actF != action) {
                return true;
            }
            if (actCheckFails(c.nxtT, action) || actCheckFails(c.nxtF, action)) {
                return true;
            }
            c = c.lvlNxt;
        } while (c != null);
        return false;
    }

    // ---- _db_tree_prune ----

    private static final class State {
        int flags;
        int action;
        Entry sx;

        State copy() {
            State s = new State();
            s.flags = flags;
            s.action = action;
            s.sx = sx;
            return s;
        }
    }

    private static int prune(Slot existing, Node nw, State state) {
        int cnt = 0;
        State stateNew = state.copy();
        Node x = existing.get();
        Node n = nw;
        prune:
        {
            if (n == null || x == null) {
                break prune;
            }
            if ((state.flags & IST_M_MATCHSET) == IST_MATCH_ONCE) {
                break prune;
            }
            while (x.lvlPrv != null) {
                x = x.lvlPrv;
            }
            do {
                Node xNext = x.lvlNxt;
                next:
                {
                    if (eq(x, n)) {
                        stateNew.flags |= IST_M_MATCHSET;
                        if (leaf(n)) {
                            stateNew.flags |= IST_N_FINISHED;
                        }
                        if (leaf(x)) {
                            stateNew.flags |= IST_X_FINISHED;
                        }
                        if ((x.actTFlg || x.nxtT != null) && !(n.actTFlg || n.nxtT != null)) {
                            break prune;
                        }
                        if ((x.actFFlg || x.nxtF != null) && !(n.actFFlg || n.nxtF != null)) {
                            break prune;
                        }
                        if ((stateNew.flags & IST_N_FINISHED) != 0 && (stateNew.flags & IST_X_FINISHED) != 0) {
                            if (n.actTFlg != x.actTFlg || n.actT != x.actT
                                    || n.actFFlg != x.actFFlg || n.actF != x.actF) {
                                break prune;
                            }
                        }
                        if (n.nxtT != null) {
                            get(x);
                            State nxt = state.copy();
                            nxt.flags |= IST_M_MATCHSET;
                            cnt += prune(nxtTSlot(x), n.nxtT, nxt);
                            Slot xs = new Slot(x);
                            cnt += nodePut(xs);
                            x = xs.get();
                            if ((nxt.flags & IST_MATCH) != 0) {
                                stateNew.flags |= nxt.flags;
                            }
                            if (x == null) {
                                break next;
                            }
                        }
                        if (n.nxtF != null) {
                            get(x);
                            State nxt = state.copy();
                            nxt.flags |= IST_M_MATCHSET;
                            cnt += prune(nxtFSlot(x), n.nxtF, nxt);
                            Slot xs = new Slot(x);
                            cnt += nodePut(xs);
                            x = xs.get();
                            if ((nxt.flags & IST_MATCH) != 0) {
                                stateNew.flags |= nxt.flags;
                            }
                            if (x == null) {
                                break next;
                            }
                        }
                        boolean sameActions = !actCheckFails(x, stateNew.action);
                        if (sameActions && (stateNew.flags & IST_MATCH) != 0
                                && (stateNew.flags & IST_N_FINISHED) != 0 && (stateNew.flags & IST_X_PREFIX) != 0) {
                            // The new tree is "shorter": drop the existing sub-tree.
                            cnt += treeRemove(chainsSlot(state.sx), x);
                            if (state.sx.chains == null) {
                                break prune;
                            }
                        } else if (sameActions && (stateNew.flags & IST_MATCH) != 0
                                && (stateNew.flags & IST_X_FINISHED) != 0 && (stateNew.flags & IST_N_PREFIX) != 0) {
                            break prune;
                        }
                    } else if (lt(x, n)) {
                        if ((state.flags & IST_N_PREFIX) != 0) {
                            break prune;
                        }
                        if (x.nxtT != null) {
                            get(x);
                            State nxt = state.copy();
                            nxt.flags &= ~IST_MATCH;
                            nxt.flags |= IST_X_PREFIX;
                            cnt += prune(nxtTSlot(x), n, nxt);
                            Slot xs = new Slot(x);
                            cnt += nodePut(xs);
                            x = xs.get();
                            if ((nxt.flags & IST_MATCH) != 0) {
                                stateNew.flags |= nxt.flags;
                                break prune;
                            }
                            if (x == null) {
                                break next;
                            }
                        }
                        if (x.nxtF != null) {
                            get(x);
                            State nxt = state.copy();
                            nxt.flags &= ~IST_MATCH;
                            nxt.flags |= IST_X_PREFIX;
                            cnt += prune(nxtFSlot(x), n, nxt);
                            Slot xs = new Slot(x);
                            cnt += nodePut(xs);
                            x = xs.get();
                            if ((nxt.flags & IST_MATCH) != 0) {
                                stateNew.flags |= nxt.flags;
                                break prune;
                            }
                            if (x == null) {
                                break next;
                            }
                        }
                    } else {
                        if ((state.flags & IST_X_PREFIX) != 0) {
                            break prune;
                        }
                        if (n.nxtT != null) {
                            get(x);
                            State nxt = state.copy();
                            nxt.flags &= ~IST_MATCH;
                            nxt.flags |= IST_N_PREFIX;
                            Slot xs = new Slot(x);
                            cnt += prune(xs, n.nxtT, nxt);
                            cnt += nodePut(xs);
                            x = xs.get();
                            if ((nxt.flags & IST_MATCH) != 0) {
                                stateNew.flags |= nxt.flags;
                                break prune;
                            }
                            if (x == null) {
                                break next;
                            }
                        }
                        if (n.nxtF != null) {
                            get(x);
                            State nxt = state.copy();
                            nxt.flags &= ~IST_MATCH;
                            nxt.flags |= IST_N_PREFIX;
                            Slot xs = new Slot(x);
                            cnt += prune(xs, n.nxtF, nxt);
                            cnt += nodePut(xs);
                            x = xs.get();
                            if ((nxt.flags & IST_MATCH) != 0) {
                                stateNew.flags |= nxt.flags;
                                break prune;
                            }
                            if (x == null) {
                                break next;
                            }
                        }
                    }
                }
                x = xNext;
            } while (x != null);
            // Fell off the level: nothing matched here.
            stateNew.flags &= ~IST_MATCH;
        }
        if ((stateNew.flags & IST_MATCH) != 0) {
            state.flags |= stateNew.flags;
        } else {
            state.flags &= ~IST_MATCH;
        }
        return cnt;
    }

    // ---- _db_tree_add ----

    private static int treeAdd(Slot existing, Node nw, State state) {
        Node x = existing.get();
        Node n = nw;
        do {
            if (eq(x, n)) {
                if (n.actTFlg) {
                    if (!x.actTFlg) {
                        if (actCheckFails(x.nxtT, n.actT)) {
                            return -EEXIST;
                        }
                        state.sx.nodeCnt -= nodePut(nxtTSlot(x));
                        x.nxtT = null;
                        x.actT = n.actT;
                        x.actTFlg = true;
                    } else if (n.actT != x.actT) {
                        if (n.hi && Long.compareUnsigned(n.datumFull, x.datumFull) > 0) {
                            x.actT = n.actT;
                        }
                        if (leaf(x) || leaf(n)) {
                            return -EEXIST;
                        }
                    }
                }
                if (n.actFFlg) {
                    if (!x.actFFlg) {
                        if (actCheckFails(x.nxtF, n.actF)) {
                            return -EEXIST;
                        }
                        state.sx.nodeCnt -= nodePut(nxtFSlot(x));
                        x.nxtF = null;
                        x.actF = n.actF;
                        x.actFFlg = true;
                    } else if (n.actF != x.actF) {
                        // libseccomp 2.5.4 sets the true action here (sic).
                        if (n.hi && Long.compareUnsigned(n.datumFull, x.datumFull) < 0) {
                            x.actT = n.actT;
                        }
                        if (leaf(x) || leaf(n)) {
                            return -EEXIST;
                        }
                    }
                }
                if (n.nxtT != null) {
                    if (x.nxtT != null) {
                        int rc = treeAdd(nxtTSlot(x), n.nxtT, state);
                        if (rc != 0) {
                            return rc;
                        }
                    } else if (!x.actTFlg) {
                        x.nxtT = get(n.nxtT);
                    } else {
                        return 0;
                    }
                }
                if (n.nxtF != null) {
                    if (x.nxtF != null) {
                        int rc = treeAdd(nxtFSlot(x), n.nxtF, state);
                        if (rc != 0) {
                            return rc;
                        }
                    } else if (!x.actFFlg) {
                        x.nxtF = get(n.nxtF);
                    } else {
                        return 0;
                    }
                }
                return 0;
            } else if (!lt(x, n)) {
                if (x.lvlNxt == null) {
                    n.lvlPrv = get(x);
                    x.lvlNxt = get(n);
                    return 0;
                }
                x = x.lvlNxt;
            } else {
                if (x.lvlPrv != null) {
                    x.lvlPrv.lvlNxt = get(n);
                    n.lvlPrv = x.lvlPrv;
                    x.lvlPrv = get(n);
                    n.lvlNxt = x;
                } else {
                    x.lvlPrv = get(n);
                    n.lvlNxt = get(x);
                }
                if (existing.get() == x) {
                    existing.set(get(n));
                    nodePut(new Slot(x));
                }
                return 0;
            }
        } while (x != null);
        return 0;
    }
}
