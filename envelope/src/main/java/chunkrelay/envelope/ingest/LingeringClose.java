package chunkrelay.envelope.ingest;

import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import jakarta.inject.Singleton;

import java.util.concurrent.TimeUnit;

/**
 * Closes a connection the way a client still sending can read the answer: when the server closes (after a 413 for a
 * body over the wire limit, say), the answer is flushed, the sending side is shut (the client reads the answer and
 * end of stream), and what the client still sends is read and dropped for at most {@link #LINGER_MILLIS} before the
 * socket closes. Closed at once, a socket with unread bytes sends a reset, and a client that had not yet read the
 * answer loses it. Dropped bytes are never kept, so a lingering connection holds no memory.
 */
@Singleton
public class LingeringClose implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {
    static final long LINGER_MILLIS = 2_000;

    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        event.getBean().register(new PerConnection(null));
        return event.getBean();
    }

    /** Adds the handler to each accepted connection's pipeline. */
    private record PerConnection(Channel channel) implements NettyServerCustomizer {
        @Override
        public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
            return role == ChannelRole.CONNECTION ? new PerConnection(channel) : this;
        }

        @Override
        public void onInitialPipelineBuilt() {
            if (channel instanceof SocketChannel) {
                channel.pipeline().addFirst("lingering-close", new Handler());
            }
        }
    }

    /** First in the pipeline: sees the server's close last and the client's bytes first. */
    private static final class Handler extends ChannelDuplexHandler {
        private boolean lingering;
        private ChannelPromise closePromise;

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
            SocketChannel channel = (SocketChannel) ctx.channel();
            if (lingering || !channel.isActive() || channel.isInputShutdown()) {
                ctx.close(promise);
                return;
            }
            lingering = true;
            closePromise = promise;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
                if (!written.isSuccess()) {
                    closeNow(ctx);
                    return;
                }
                channel.shutdownOutput().addListener(shut -> {
                    channel.config().setAutoRead(true);
                    ctx.read();
                });
                ctx.executor().schedule(() -> closeNow(ctx), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            });
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (lingering) {
                ReferenceCountUtil.release(msg);
            } else {
                ctx.fireChannelRead(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!lingering) {
                ctx.fireChannelReadComplete();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (lingering && event instanceof ChannelInputShutdownEvent) {
                closeNow(ctx);
                return;
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (closePromise != null) {
                closePromise.trySuccess();
            }
            ctx.fireChannelInactive();
        }

        private void closeNow(ChannelHandlerContext ctx) {
            if (ctx.channel().isOpen()) {
                ctx.close(closePromise != null ? closePromise : ctx.newPromise());
            }
        }
    }
}
