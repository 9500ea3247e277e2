-- rw_read_settle: a reader that got the read lock by a grant (see rw_write_release) sets its own
-- lease, a third of the way into the grant lease.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the reader's lease prefix, {<name>}:<clientId>:<threadId>:rwlock_timeout
-- ARGV[1]  reader field, <clientId>:<threadId>
-- ARGV[2]  the reader's lease in milliseconds (the rest of it, for a fixed lease)
--
-- Returns  1 when the reader still holds the read lock (the lease of its first hold is set, and
--          the hash lives at least as long), 0 when it does not.
-- Publishes nothing.
if redis.call('hget', KEYS[1], 'mode') ~= 'read' or redis.call('pexpire', KEYS[2] .. ':1', ARGV[2]) == 0 then
    return 0
end
if not pcall(redis.call, 'pexpire', KEYS[1], ARGV[2], 'gt') then
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[2])))
end
return 1
