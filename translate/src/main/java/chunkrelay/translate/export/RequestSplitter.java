package chunkrelay.translate.export;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a request that is too large for one HTTP body into parts by samples. Each part is a complete, valid
 * request: the resource, scope and profile headers its samples belong to (profiles without samples in a part
 * are left out of it: receivers drop sample-less profiles anyway) and a dictionary pruned to the entries the
 * part references ({@link DictionaryPruner}), re-indexed, with no orphans.
 *
 * <p>Parts are planned before they are built: the size of a part is bounded by the size of the full
 * dictionary plus its headers and samples, each with the largest possible tag and length prefix (pruning and
 * re-indexing never grow a message), so a planned part never exceeds the limit. Parts are built one at a time
 * so only one part's rewritten samples are in memory.
 */
final class RequestSplitter {
    /** Largest tag (fields 1-15: one byte) plus largest length prefix of a nested message (five bytes). */
    private static final int FRAMING = 6;

    /** Samples {@code [fromSample, toSample)} of one profile. */
    record Slice(int resource, int scope, int profile, int fromSample, int toSample) {
    }

    /** A request that cannot be cut under the limit, e.g. one sample plus the dictionary is larger. */
    static final class TooLargeException extends Exception {
        TooLargeException(String message) {
            super(message);
        }
    }

    private final ExportProfilesServiceRequest request;

    RequestSplitter(ExportProfilesServiceRequest request) {
        this.request = request;
    }

    /** The parts, each a list of slices in request order, each part at most {@code limit} bytes. */
    List<List<Slice>> plan(long limit) throws TooLargeException {
        long dictionaryBound = request.getDictionary().getSerializedSize() + FRAMING;
        List<List<Slice>> parts = new ArrayList<>();
        List<Slice> part = new ArrayList<>();
        long partSize = dictionaryBound;
        int lastResource = -1;
        int lastScope = -1;

        for (int r = 0; r < request.getResourceProfilesCount(); r++) {
            ResourceProfiles resource = request.getResourceProfiles(r);
            long resourceBound = resource.toBuilder().clearScopeProfiles().build().getSerializedSize() + FRAMING;
            for (int s = 0; s < resource.getScopeProfilesCount(); s++) {
                ScopeProfiles scope = resource.getScopeProfiles(s);
                long scopeBound = scope.toBuilder().clearProfiles().build().getSerializedSize() + FRAMING;
                for (int p = 0; p < scope.getProfilesCount(); p++) {
                    Profile profile = scope.getProfiles(p);
                    long profileBound = profile.toBuilder().clearSamples().build().getSerializedSize() + FRAMING;
                    int from = 0;
                    for (int i = 0; i < profile.getSamplesCount(); i++) {
                        long sampleBound = profile.getSamples(i).getSerializedSize() + FRAMING;
                        boolean openSlice = i > from;
                        long headers = (openSlice ? 0 : profileBound)
                                + (lastResource == r && lastScope == s ? 0 : scopeBound)
                                + (lastResource == r ? 0 : resourceBound);
                        if (partSize + headers + sampleBound > limit && (openSlice || !part.isEmpty())) {
                            if (openSlice) {
                                part.add(new Slice(r, s, p, from, i));
                            }
                            parts.add(part);
                            part = new ArrayList<>();
                            from = i;
                            lastResource = -1;
                            lastScope = -1;
                            partSize = dictionaryBound;
                            headers = profileBound + scopeBound + resourceBound;
                        }
                        if (partSize + headers + sampleBound > limit) {
                            throw new TooLargeException("a single sample of " + sampleBound
                                    + " bytes with a dictionary of " + dictionaryBound + " bytes exceeds the "
                                    + limit + "-byte request limit");
                        }
                        partSize += headers + sampleBound;
                        lastResource = r;
                        lastScope = s;
                    }
                    if (profile.getSamplesCount() > from) {
                        part.add(new Slice(r, s, p, from, profile.getSamplesCount()));
                    }
                }
            }
        }
        if (!part.isEmpty()) {
            parts.add(part);
        }
        return parts;
    }

    /** Builds one planned part with its own pruned dictionary. */
    ExportProfilesServiceRequest build(List<Slice> part) {
        ProfilesDictionary dictionary = request.getDictionary();
        DictionaryPruner pruner = new DictionaryPruner(dictionary);
        int markedResource = -1;
        int markedScope = -1;
        for (Slice slice : part) {
            ResourceProfiles resource = request.getResourceProfiles(slice.resource());
            ScopeProfiles scope = resource.getScopeProfiles(slice.scope());
            if (slice.resource() != markedResource) {
                pruner.markKeyValues(resource.getResource().getAttributesList());
            }
            if (slice.resource() != markedResource || slice.scope() != markedScope) {
                pruner.markKeyValues(scope.getScope().getAttributesList());
            }
            markedResource = slice.resource();
            markedScope = slice.scope();
            Profile profile = scope.getProfiles(slice.profile());
            pruner.markProfileHeader(profile);
            for (int i = slice.fromSample(); i < slice.toSample(); i++) {
                pruner.markSample(profile.getSamples(i));
            }
        }

        ExportProfilesServiceRequest.Builder out = ExportProfilesServiceRequest.newBuilder()
                .setDictionary(pruner.compact());
        ResourceProfiles.Builder resourceOut = null;
        ScopeProfiles.Builder scopeOut = null;
        int builtResource = -1;
        int builtScope = -1;
        for (Slice slice : part) {
            ResourceProfiles resource = request.getResourceProfiles(slice.resource());
            ScopeProfiles scope = resource.getScopeProfiles(slice.scope());
            if (slice.resource() != builtResource) {
                addScope(resourceOut, scopeOut);
                addResource(out, resourceOut);
                scopeOut = null;
                resourceOut = resource.toBuilder().clearScopeProfiles();
                if (resource.hasResource()) {
                    resourceOut.setResource(resource.getResource().toBuilder().clearAttributes()
                            .addAllAttributes(pruner.remapKeyValues(resource.getResource().getAttributesList())));
                }
            }
            if (scopeOut == null || slice.scope() != builtScope) {
                addScope(resourceOut, scopeOut);
                scopeOut = scope.toBuilder().clearProfiles();
                if (scope.hasScope()) {
                    scopeOut.setScope(scope.getScope().toBuilder().clearAttributes()
                            .addAllAttributes(pruner.remapKeyValues(scope.getScope().getAttributesList())));
                }
            }
            builtResource = slice.resource();
            builtScope = slice.scope();
            Profile profile = scope.getProfiles(slice.profile());
            Profile.Builder profileOut = pruner.remapHeader(profile).toBuilder();
            for (int i = slice.fromSample(); i < slice.toSample(); i++) {
                profileOut.addSamples(pruner.remap(profile.getSamples(i)));
            }
            scopeOut.addProfiles(profileOut);
        }
        addScope(resourceOut, scopeOut);
        addResource(out, resourceOut);
        return out.build();
    }

    private static void addScope(ResourceProfiles.Builder resource, ScopeProfiles.Builder scope) {
        if (resource != null && scope != null) {
            resource.addScopeProfiles(scope);
        }
    }

    private static void addResource(ExportProfilesServiceRequest.Builder out, ResourceProfiles.Builder resource) {
        if (resource != null) {
            out.addResourceProfiles(resource);
        }
    }
}
