-- rw_write_acquire: take or re-enter the write lock of a read-write lock.
--
-- KEYS[1]  the lock hash (see rw_read_acquire)
-- KEYS[2]  the readers' lease base, {<name>}: reader f's hold n has the key
--          KEYS[2]:f:rwlock_timeout:n
-- KEYS[3]  the holders' since, padlock_since:{<name>} (see lock_claim): a first write hold sets
--          the writer's entry (epoch ms, Redis TIME), dropped readers' entries go; the hash lives
--          as long as the lock
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  writer field, <clientId>:<threadId>:write
-- ARGV[3]  the same owner's reader field, <clientId>:<threadId>
--
-- Returns  nil when acquired: free (the lease is ARGV[1]), or re-entry by the writer (the lease
--          becomes the remaining PTTL + ARGV[1], never shorter), -3 when this owner holds only
--          the read lock (an upgrade, refused: it would wait on itself), otherwise the lock's
--          PTTL in milliseconds.
-- Publishes nothing. Readers whose every hold's lease is over are dropped first, so a reader
-- that died holds up writers no longer than its own lease.
if redis.replicate_commands then
    redis.replicate_commands()
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'read' then
    for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
        if field ~= 'mode' then
            local alive = false
            for n = tonumber(redis.call('hget', KEYS[1], field)), 1, -1 do
                if redis.call('exists', KEYS[2] .. ':' .. field .. ':rwlock_timeout:' .. n) == 1 then
                    alive = true
                    break
                end
            end
            if not alive then
                redis.call('hdel', KEYS[1], field)
                redis.call('hdel', KEYS[3], field)
            end
        end
    end
    if redis.call('hlen', KEYS[1]) <= 1 then
        redis.call('del', KEYS[1], KEYS[3])
        mode = false
    end
end
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    local t = redis.call('time')
    redis.call('hset', KEYS[3], ARGV[2], t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000)))
    redis.call('pexpire', KEYS[3], ARGV[1])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    -- as Redisson's write lock: the remaining lease plus the new one, so an inner acquisition
    -- never shortens what the outer one holds (a lock without expiry keeps none)
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        redis.call('pexpire', KEYS[1], ttl + tonumber(ARGV[1]))
        redis.call('pexpire', KEYS[3], ttl + tonumber(ARGV[1]))
    end
    return nil
end
if mode == 'read' and redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
    return -3
end
return redis.call('pttl', KEYS[1])
