-- rw_write_leave: take a writer that gave up out of the writers' line; when it was first and the
-- lock is free, wake who can get in now.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  the writers' line, padlock_rw_queue:{<name>} (see rw_read_acquire)
-- KEYS[4]  the line's deadlines, padlock_rw_deadlines:{<name>}
-- KEYS[5]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): it goes with the last writer
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  writer field, <clientId>:<threadId>:write
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
--
-- Returns  1 when the writer was in line (it is removed), 0 otherwise.
-- Publishes, when the writer was first in line and the lock is free: "1" on the next live
-- writer's channel, or with none on the shared channel (readers that yielded to it go on); when
-- it was the last in line and readers hold the lock: "1" on the shared channel (the same).
if redis.replicate_commands then
    redis.replicate_commands()
end
local head = redis.call('lindex', KEYS[3], 0)
redis.call('zrem', KEYS[4], ARGV[2])
if redis.call('lrem', KEYS[3], 0, ARGV[2]) == 0 then
    return 0
end
local last = not redis.call('lindex', KEYS[3], 0)
if last then
    redis.call('del', KEYS[5])
end
if redis.call('hget', KEYS[1], 'mode') == 'read' then
    if last then
        redis.call(ARGV[3], KEYS[2], ARGV[1]) -- readers that yielded to the line go on
    end
    return 1
end
if head ~= ARGV[2] or redis.call('exists', KEYS[1]) == 1 then
    return 1
end
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
head = redis.call('lindex', KEYS[3], 0)
while head do
    local deadline = tonumber(redis.call('zscore', KEYS[4], head))
    if deadline and deadline > now then
        redis.call(ARGV[3], KEYS[2] .. ':' .. head, ARGV[1])
        return 1
    end
    redis.call('lpop', KEYS[3])
    redis.call('zrem', KEYS[4], head)
    head = redis.call('lindex', KEYS[3], 0)
end
redis.call('del', KEYS[5])
redis.call(ARGV[3], KEYS[2], ARGV[1])
return 1
