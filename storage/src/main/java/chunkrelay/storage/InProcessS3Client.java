package chunkrelay.storage;

import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CreateBucketRequest;
import software.amazon.awssdk.services.s3.model.CreateBucketResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadBucketRequest;
import software.amazon.awssdk.services.s3.model.HeadBucketResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The S3 operations the archive uses, served by the embedded server's own store in this process: the same requests,
 * the same store and the same answers (412 on a conditional write that loses, {@code NoSuchKey}, listings with
 * delimiters) as over HTTP, without the HTTP exchange, the client's request pipeline and the server's parsing. Used
 * by the relay for the embedded server it runs itself; anything else reaches that server over its S3 API.
 *
 * <p>Failures of the store other than S3 answers (a full disk, say) come out as {@link SdkClientException}, as a
 * failed exchange would, so the archive retries them and then answers 503; a stopped server is unreachable.
 */
final class InProcessS3Client implements S3Client {
    private final BlobStore store;
    private final BooleanSupplier serving;

    InProcessS3Client(BlobStore store, BooleanSupplier serving) {
        this.store = store;
        this.serving = serving;
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
        return call(() -> {
            PutObjectRequest sized = body.optionalContentLength().map(length -> request.toBuilder()
                    .contentLength(length).build()).orElse(request);
            try (InputStream content = body.contentStreamProvider().newStream()) {
                return store.putBlob(sized, content);
            } catch (IOException e) {
                throw SdkClientException.create("reading the request body failed", e);
            }
        });
    }

    @Override
    public <T> T getObject(GetObjectRequest request, ResponseTransformer<GetObjectResponse, T> transformer) {
        return call(() -> {
            try (ResponseInputStream<GetObjectResponse> object = store.getBlob(request)) {
                return transformer.transform(object.response(), AbortableInputStream.create(object));
            } catch (SdkException e) {
                throw e;
            } catch (Exception e) {
                throw SdkClientException.create("reading " + request.key() + " failed", e);
            }
        });
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest request) {
        return call(() -> store.blobMetadata(request));
    }

    @Override
    public ListObjectsV2Response listObjectsV2(ListObjectsV2Request request) {
        return call(() -> store.list(request));
    }

    @Override
    public DeleteObjectResponse deleteObject(DeleteObjectRequest request) {
        return call(() -> store.removeBlob(request));
    }

    @Override
    public HeadBucketResponse headBucket(HeadBucketRequest request) {
        return call(() -> store.headBucket(request));
    }

    @Override
    public CreateBucketResponse createBucket(CreateBucketRequest request) {
        return call(() -> store.createContainer(request));
    }

    @Override
    public String serviceName() {
        return SERVICE_NAME;
    }

    @Override
    public void close() {
        // the store belongs to the embedded server, which closes it
    }

    private <T> T call(Supplier<T> operation) {
        if (!serving.getAsBoolean()) {
            // as a refused connection: the request reached no store, so nothing can have been written
            throw SdkClientException.create("the embedded S3 server is stopped",
                    new ConnectException("the embedded S3 server is stopped"));
        }
        try {
            return operation.get();
        } catch (SdkException e) {
            throw e;
        } catch (RuntimeException e) {
            throw SdkClientException.create("the embedded store failed: " + e, e);
        }
    }
}
