-- rw_force_release: delete a read-write lock when it is in the given mode, whoever holds it, and
-- wake every waiter: those on the shared channel and the first writer in line (its deadline is
-- not read: a first writer that is gone is dropped by the next attempt).
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  the writer's since, padlock_since:{<name>}: deleted with the lock
-- KEYS[4]  the writers' line, padlock_rw_queue:{<name>} (see rw_read_acquire)
-- KEYS[5]  the readers' hall, padlock_rw_readers:{<name>} (see rw_read_acquire): deleted, its
--          readers wake on the shared channel and try again
-- KEYS[6]  the readers' turn, padlock_rw_turn:{<name>} (see rw_read_acquire): deleted
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  the mode to free: read or write
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the lock was held in that mode (it is deleted), 0 otherwise; 2 when it was
--          deleted but Redis refused a message (an ACL user without the channel: NOPERM): it woke
--          nobody, and the call goes on rather than fail after the delete (a script is not rolled
--          back). Waiters look again when the lease they saw runs out (in line: at their next look).
-- Readers' lease keys are left to expire; a first writer in line that is gone is dropped by the
-- next attempt.
-- PUBLISH, or SPUBLISH (sharded) on a Redis 7 Cluster, under pcall: true and how many heard, or
-- false when Redis refused it. The command name is a literal, as strict servers require
local function pcall_publish(channel, message)
    if ARGV[3] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
if redis.call('hget', KEYS[1], 'mode') == ARGV[2] then
    redis.call('del', KEYS[1], KEYS[3], KEYS[5], KEYS[6])
    local head = redis.call('lindex', KEYS[4], 0)
    local field = head and string.match(head, '^(.*:write):%d+:%d+$')
    local allowed = not field or pcall_publish(KEYS[2] .. ':' .. field, ARGV[1])
    allowed = pcall_publish(KEYS[2], ARGV[1]) and allowed
    return allowed and 1 or 2
end
return 0
