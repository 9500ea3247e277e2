-- fair_leave: take the place of a waiter that gave up out of a fair lock's line; when a grant
-- reached it meanwhile, it keeps that instead, with its own lease.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the line, padlock_fair_queue:{<name>} (see fair_acquire)
-- KEYS[3]  the holders' since, padlock_since:{<name>}
-- ARGV[1]  the waiter's owner field, <clientId>:<threadId>
-- ARGV[2]  the waiter's place
-- ARGV[3]  the waiter's lease in milliseconds
--
-- Returns  1 when its place was in line (it is removed: no grant reached it);
--          2 when the place was out of line and the waiter's field is in the lock: a grant that
--          came as it gave up (it did not hold when it took its place, and its client runs one
--          wait with a place per owner), which it now holds once with lease ARGV[3];
--          0 otherwise.
-- Publishes nothing. A lock left free with places behind goes on at the next attempt of any of
-- them (each looks again at least once a look interval: see fair_acquire).
if redis.call('lrem', KEYS[2], 0, ARGV[2]) > 0 then
    return 1
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[3])
    redis.call('pexpire', KEYS[3], ARGV[3])
    return 2
end
return 0
