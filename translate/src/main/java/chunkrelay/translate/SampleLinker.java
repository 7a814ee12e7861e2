package chunkrelay.translate;

import chunkrelay.chunk.SampleOrder;
import chunkrelay.chunk.spans.SpanRecord;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import com.google.protobuf.ByteString;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static chunkrelay.translate.OtlpAttributes.SENTRY_SAMPLES_AMBIGUOUS;
import static chunkrelay.translate.OtlpAttributes.SENTRY_SAMPLES_LINKED;
import static chunkrelay.translate.OtlpAttributes.THREAD_ID;

/**
 * Links the samples of a request {@link ChunkTranslator} made without spans, as it would have linked them with
 * these spans: each sample to the innermost span covering it on its thread, samples regrouped by (stack, thread,
 * link), the links appended to the link table and the counts to the profile's attributes. So that a relay can
 * translate a chunk when it arrives, keep only the compact OTLP form while spans may still come, and link it when
 * the window ends, without parsing the chunk's JSON again.
 *
 * <p>The result carries the same samples, links and attributes as {@link ChunkTranslator#translateWithLinks}; the
 * dictionary's other tables are the request's own, unchanged. Samples are taken in time order; where samples share
 * a timestamp the translator's order (the chunk's) is no longer known, so such ties may group in another order.
 */
public final class SampleLinker {

    private SampleLinker() {
    }

    /** @throws IllegalArgumentException when the request is not one profile as the translator writes it */
    public static ChunkTranslator.Translated link(ExportProfilesServiceRequest unlinked, SpanTimeline spans) {
        Profile profile = onlyProfile(unlinked);
        int total = 0;
        for (Sample sample : profile.getSamplesList()) {
            total += sample.getTimestampsUnixNanoCount();
        }
        if (spans.isEmpty()) {
            return new ChunkTranslator.Translated(unlinked, 0, total, 0);
        }
        ProfilesDictionary dictionary = unlinked.getDictionary();
        List<Sample> groups = profile.getSamplesList();

        // the thread of each group, and whether the chunk had one thread (spans without a thread then match it)
        List<String> threadIds = new ArrayList<>();
        int[] threadIndexOfGroup = new int[groups.size()];
        for (int g = 0; g < groups.size(); g++) {
            String threadId = threadId(groups.get(g), dictionary);
            int known = threadIds.indexOf(threadId);
            if (known < 0) {
                known = threadIds.size();
                threadIds.add(threadId);
            }
            threadIndexOfGroup[g] = known;
        }
        boolean oneThread = threadIds.size() == 1;

        // every sample, in time order (stable: ties keep the groups' order)
        long[] times = new long[total];
        int[] groupOf = new int[total];
        int at = 0;
        for (int g = 0; g < groups.size(); g++) {
            // by index: the list's iterator boxes every timestamp
            Sample group = groups.get(g);
            for (int i = 0; i < group.getTimestampsUnixNanoCount(); i++) {
                times[at] = group.getTimestampsUnixNano(i);
                groupOf[at++] = g;
            }
        }
        int[] order = SampleOrder.stableOrder(times, total);

        SpanTimeline.ThreadLinks[] linksOfThread = new SpanTimeline.ThreadLinks[threadIds.size()];
        int[] linkOfSpan = new int[spans.size()];
        ProfilesDictionary.Builder tables = dictionary.toBuilder();
        int linked = 0;
        int ambiguous = 0;
        SampleGroups relinkedGroups = new SampleGroups(total);
        for (int i = 0; i < total; i++) {
            int sample = order[i];
            int g = groupOf[sample];
            int thread = threadIndexOfGroup[g];
            SpanTimeline.ThreadLinks links = linksOfThread[thread];
            if (links == null) {
                links = linksOfThread[thread] = spans.forThread(threadIds.get(thread), oneThread);
            }
            int span = links.spanAt(times[sample]);
            int link = 0;
            if (span == SpanTimeline.AMBIGUOUS) {
                ambiguous++;
            } else if (span != SpanTimeline.UNLINKED) {
                linked++;
                link = linkOfSpan[span];
                if (link == 0) {
                    link = linkOfSpan[span] = tables.getLinkTableCount();
                    tables.addLinkTable(link(spans.span(span)));
                }
            }
            relinkedGroups.add(((long) g << 32) | link);
        }
        relinkedGroups.fill(i -> times[order[i]]);

        Profile.Builder relinked = profile.toBuilder().clearSamples();
        for (int g = 0; g < relinkedGroups.size(); g++) {
            long key = relinkedGroups.key(g);
            Sample source = groups.get((int) (key >>> 32));
            relinked.addSamples(relinkedGroups.addTimestamps(g,
                    source.toBuilder().setLinkIndex((int) key).clearTimestampsUnixNano()));
        }
        relinked.addAttributeIndices(countAttribute(tables, SENTRY_SAMPLES_LINKED, linked));
        relinked.addAttributeIndices(countAttribute(tables, SENTRY_SAMPLES_AMBIGUOUS, ambiguous));

        ExportProfilesServiceRequest.Builder request = unlinked.toBuilder().setDictionary(tables);
        request.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).setProfiles(0, relinked);
        return new ChunkTranslator.Translated(request.build(), linked, total - linked - ambiguous, ambiguous);
    }

    private static Profile onlyProfile(ExportProfilesServiceRequest request) {
        if (request.getResourceProfilesCount() != 1 || request.getResourceProfiles(0).getScopeProfilesCount() != 1
                || request.getResourceProfiles(0).getScopeProfiles(0).getProfilesCount() != 1) {
            throw new IllegalArgumentException("not one profile as the translator writes it");
        }
        Profile profile = request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
        if (request.getDictionary().getLinkTableCount() != 1) {
            throw new IllegalArgumentException("the request is linked already");
        }
        return profile;
    }

    /** The sample's {@code thread.id} as the chunk spelled it (ints in canonical decimal). */
    private static String threadId(Sample sample, ProfilesDictionary dictionary) {
        for (int index : sample.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            if (THREAD_ID.equals(dictionary.getStringTable(attribute.getKeyStrindex()))) {
                AnyValue value = attribute.getValue();
                return value.hasIntValue() ? Long.toString(value.getIntValue()) : value.getStringValue();
            }
        }
        throw new IllegalArgumentException("a sample without " + THREAD_ID);
    }

    /** As the translator's dictionary takes links: ids of 16 and 8 bytes, or the chunk fails as it would there. */
    private static Link link(SpanRecord span) {
        Link link = Link.newBuilder()
                .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(span.traceId())))
                .setSpanId(ByteString.copyFrom(HexFormat.of().parseHex(span.spanId())))
                .build();
        if (link.getTraceId().size() != 16 || link.getSpanId().size() != 8) {
            throw new IllegalArgumentException("link ids must be 16 and 8 bytes, got "
                    + link.getTraceId().size() + " and " + link.getSpanId().size());
        }
        return link;
    }

    /** Appends {@code key = count} (and the key's string when the table lacks it); returns its index. */
    private static int countAttribute(ProfilesDictionary.Builder tables, String key, long count) {
        int keyIndex = tables.getStringTableList().indexOf(key);
        if (keyIndex < 0) {
            keyIndex = tables.getStringTableCount();
            tables.addStringTable(key);
        }
        tables.addAttributeTable(KeyValueAndUnit.newBuilder().setKeyStrindex(keyIndex)
                .setValue(AnyValue.newBuilder().setIntValue(count)));
        return tables.getAttributeTableCount() - 1;
    }
}
