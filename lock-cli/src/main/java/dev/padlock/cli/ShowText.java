package dev.padlock.cli;

/**
 * {@code padlock show} in text: the lock, one block per holder, the token, who waits, the
 * listeners. Where Redis cannot tell something (a client, a since, the threads waiting within a
 * client), it says so and why rather than print a guess.
 */
final class ShowText {
    private ShowText() {
    }

    static String show(LockView view) {
        StringBuilder out = new StringBuilder();
        out.append(view.name()).append(": ");
        switch (view.kind()) {
            case "free" -> out.append("free (not held)");
            case LockView.NOT_A_LOCK -> out.append("not a lock (a key of another type)");
            case LockView.SHEDLOCK -> out.append("ShedLock lock, held, TTL ").append(Text.ttl(view.ttlMillis()));
            default -> out.append(view.kind()).append(" lock")
                    .append(view.mode() != null ? ", " + view.mode() + " mode" : "")
                    .append(view.held() ? ", held, TTL " + Text.ttl(view.ttlMillis()) : ", free");
        }
        out.append('\n');
        for (LockView.Holder h : view.holders()) {
            holder(view, h, out);
        }
        if (view.token() != null) {
            out.append("  token    ").append(view.token()).append(view.held() ? " (the holder's)" : " (the last one handed out)")
                    .append('\n');
        }
        if (view.waiting() != null && (view.held() || view.waiting().clients() > 0)) {
            waiting(view, out);
        }
        if (!view.channels().isEmpty()) {
            out.append("  listeners ").append(Text.count(view.listeners(), "subscription")).append(" on ")
                    .append(String.join(", ", view.channels())).append('\n');
        }
        return out.toString();
    }

    private static void holder(LockView view, LockView.Holder h, StringBuilder out) {
        out.append("  ").append(h.role()).append(' ').append(h.field()).append('\n');
        out.append("    client   ").append(Text.client(h.client())).append('\n');
        if (h.threadId() == null) {
            out.append("    holds    ").append(h.holds()).append(" (a ShedLock hold: no thread, not reentrant)\n");
        } else if (h.ownerKind() == OwnerKind.LEASE) {
            out.append("    handle   ").append(OwnerKind.LEASE.describe(h.threadId()))
                    .append(" (a LockLease: owned by its handle, not a thread), holds ").append(h.holds()).append('\n');
        } else {
            out.append("    thread   ").append(h.threadId()).append(", holds ").append(h.holds()).append('\n');
        }
        out.append("    since    ").append(h.sinceMillis() == null ? "unknown (" + h.sinceNote() + ")"
                : Text.time(h.sinceMillis()) + " (" + Text.duration(view.nowMillis() - h.sinceMillis()) + " ago)")
                .append('\n');
        if (view.isShedLock()) {
            out.append("    until    ").append(view.untilMillis() == null ? "no expiry"
                    : Text.time(view.untilMillis()) + " (in " + Text.duration(view.ttlMillis())
                            + "): lockAtMostFor, or what is left of lockAtLeastFor once the job ended").append('\n');
        } else {
            out.append("    lease    ").append(h.lease())
                    .append("unknown".equals(h.lease()) ? " (without a since, Redis cannot tell a watchdog lease from a fixed one)"
                            : "")
                    .append(", TTL ").append(Text.ttl(h.ttlMillis())).append('\n');
        }
    }

    /** The count Redis can give honestly, then each place in line, then the clients seen waiting without one. */
    private static void waiting(LockView view, StringBuilder out) {
        LockView.Waiting waiting = view.waiting();
        out.append("  waiters  ");
        if (waiting.owners() != null) {
            out.append(waiting.owners() == 0 ? "none" : Text.count(waiting.owners(), "owner") + " waiting ("
                    + waiting.note() + ")" + (waiting.clients() > 1 ? ", of " + waiting.clients() + " clients" : ""));
        } else {
            out.append(waiting.clients() == 0 ? "none seen on Redis"
                    : Text.count(waiting.clients(), "client") + " waiting (" + waiting.note() + ")");
        }
        out.append('\n');
        int position = 1;
        for (LockView.Waiter w : view.queue()) {
            out.append("    ").append(position++).append(". ").append(w.field()).append(" (").append(w.place()).append(")\n");
            out.append("       client   ").append(Text.client(w.client())).append('\n');
            out.append("       deadline ").append(w.deadlineMillis() == null ? "none"
                    : Text.time(w.deadlineMillis()) + " (in " + Text.duration(w.deadlineMillis() - view.nowMillis()) + ")")
                    .append('\n');
        }
        for (LockView.WaitingClient c : waiting.byClient()) {
            if (!c.inLine()) {
                out.append("    -  ").append(c.clientId()).append(": ").append(c.note()).append('\n');
                out.append("       client   ").append(Text.client(c.client())).append('\n');
            }
        }
        if (waiting.otherListeners() > 0) {
            out.append("    -  ").append(Text.count(waiting.otherListeners(), "more subscription"))
                    .append(" on the unlock channel, of clients with no place and no grant channel (Redisson's waiters, "
                            + "or Padlock's fenced waiters: one per client, their threads unseen)\n");
        }
    }
}
