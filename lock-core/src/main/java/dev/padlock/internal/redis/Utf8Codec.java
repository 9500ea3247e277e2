package dev.padlock.internal.redis;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * Lettuce's {@link StringCodec#UTF8}, with an exact size estimate: Lettuce then writes each key
 * and argument straight into the command's buffer, where for an inexact estimate it encodes every
 * one into a temporary buffer first (a pooled buffer, a slice and a length string per argument,
 * on every call). Netty's UTF-8 length and writer agree byte for byte, as {@link String#getBytes}
 * does with them (an unpaired surrogate is {@code '?'}). Decoding is {@link StringCodec#UTF8}'s.
 */
public final class Utf8Codec implements RedisCodec<String, String>, ToByteBufEncoder<String, String> {
    public static final Utf8Codec INSTANCE = new Utf8Codec();

    private static final StringCodec UTF8 = StringCodec.UTF8;

    private Utf8Codec() {
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        write(key, target);
    }

    @Override
    public void encodeValue(String value, ByteBuf target) {
        write(value, target);
    }

    private static void write(String text, ByteBuf target) {
        if (text != null) {
            ByteBufUtil.writeUtf8(target, text);
        }
    }

    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue == null ? 0 : ByteBufUtil.utf8Bytes((CharSequence) keyOrValue);
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return UTF8.decodeKey(bytes);
    }

    @Override
    public String decodeValue(ByteBuffer bytes) {
        return UTF8.decodeValue(bytes);
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return UTF8.encodeKey(key);
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return UTF8.encodeValue(value);
    }
}
