package dev.padlock.internal.protocol;

/**
 * Which kind of lock a grant message grants: the letter a kind's releasing scripts write before
 * it (none for the plain lock's). The message itself is read in {@code grant.GrantMessage}.
 */
public final class GrantKind {
    /** A plain lock's grant, to a client in line (see {@code LocalQueue}); its message has no prefix. */
    public static final char PLAIN = 'p';
    /** A fair lock's grant, to one owner's place in line: {@code f:}. */
    public static final char FAIR = 'f';
    /** A read lock's grant, to one owner's place in the readers' hall: {@code r:}. */
    public static final char READ = 'r';
    /** A write lock's grant, to one owner's place in the writers' line: {@code w:}. */
    public static final char WRITE = 'w';

    private GrantKind() {
    }

    /**
     * The kind letter of {@code protocol}'s grants, {@link #PLAIN} for a kind without a line: what
     * this client's counts of its holds are kept by, whether it grants or not.
     */
    public static char of(LockProtocol protocol) {
        Granting granting = protocol.granting();
        return granting == null ? PLAIN : granting.grantKind();
    }
}
