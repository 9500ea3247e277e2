-- rw_write_leave: take a writer that gave up out of the writers' line; when it was first and the
-- lock is free, wake who can get in now. When a grant reached it meanwhile, it keeps that instead,
-- with its own lease.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the unlock channel, redisson_rwlock:{<name>}; writer f waits on KEYS[2]:f
-- KEYS[3]  the writers' line, padlock_rw_queue:{<name>} (see rw_read_acquire)
-- KEYS[4]  the line's deadlines, padlock_rw_deadlines:{<name>}
-- KEYS[5]  the gate, padlock_rw_gate:{<name>} (see rw_read_acquire): it goes with the last writer
-- KEYS[6]  the writers' since, padlock_since:{<name>}
-- ARGV[1]  unlock message to publish (1: wake all)
-- ARGV[2]  the writer's place (see rw_write_acquire)
-- ARGV[3]  the publish command: publish, or spublish (sharded) on a Redis 7 Cluster
-- ARGV[4]  writer field, <clientId>:<threadId>:write
-- ARGV[5]  the writer's lease in milliseconds
--
-- Returns  2 when the writer's place was not in line and its field is in the lock in write mode:
--          a grant that came as it gave up (it held nothing when it took its place), which it now
--          holds once with a TTL of at least ARGV[5] (never shortened);
--          1 when its place was in line (it is removed), 0 otherwise.
-- Publishes, when the writer was first in line and the lock is free: "1" on the next live
-- writer's channel, or with none on the shared channel (readers that yielded to it go on); when
-- it was the last in line and readers hold the lock: "1" on the shared channel (the same). A
-- message Redis refused (an ACL user without the channel: NOPERM) wakes nobody and fails nothing:
-- those waiters look again at their next look, as after any message they missed.
if redis.replicate_commands then
    redis.replicate_commands()
end
-- sets a TTL of at least ms on key, never a shorter one than it has (the owner may hold the lock
-- through another acquisition, whose lease stays): PEXPIRE GT (Redis 7), else what PTTL says
local function extend(key, ms)
    local ok, set = pcall(redis.call, 'pexpire', key, ms, 'gt')
    if not ok or set == 0 then
        local ttl = redis.call('pttl', key)
        if ttl == -1 or (ttl >= 0 and ttl < tonumber(ms)) then
            redis.call('pexpire', key, ms)
        end
    end
end
-- PUBLISH, or SPUBLISH (sharded) on a Redis 7 Cluster, under pcall: true and how many heard, or
-- false when Redis refused it. The command name is a literal, as strict servers require
local function pcall_publish(channel, message)
    if ARGV[3] == 'spublish' then
        return pcall(redis.call, 'spublish', channel, message)
    end
    return pcall(redis.call, 'publish', channel, message)
end
-- skipped when Redis refuses it
local function publish(channel, message)
    pcall_publish(channel, message)
end
local head = redis.call('lindex', KEYS[3], 0)
redis.call('zrem', KEYS[4], ARGV[2])
if redis.call('lrem', KEYS[3], 0, ARGV[2]) == 0 then
    if redis.call('hget', KEYS[1], 'mode') == 'write' and redis.call('hexists', KEYS[1], ARGV[4]) == 1 then
        extend(KEYS[1], ARGV[5])
        extend(KEYS[6], ARGV[5])
        return 2
    end
    return 0
end
local last = not redis.call('lindex', KEYS[3], 0)
if last then
    redis.call('del', KEYS[5])
end
if redis.call('hget', KEYS[1], 'mode') == 'read' then
    if last then
        publish(KEYS[2], ARGV[1]) -- readers that yielded to the line go on
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
    local field = string.match(head, '^(.*:write):%d+:%d+$')
    if deadline and deadline > now and field then
        publish(KEYS[2] .. ':' .. field, ARGV[1])
        return 1
    end
    redis.call('lpop', KEYS[3])
    redis.call('zrem', KEYS[4], head)
    head = redis.call('lindex', KEYS[3], 0)
end
redis.call('del', KEYS[5])
publish(KEYS[2], ARGV[1])
return 1
