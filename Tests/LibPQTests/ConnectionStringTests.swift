import LibPQ
import Testing

/// A connection string's password is found however it is written, and never shown back.
@Suite struct ConnectionStringTests {
    @Test func aPasswordIsFoundHoweverItIsWritten() {
        for url in [
            "postgresql://render:s3cret@db.internal:5432/darkroom", "postgres://render:s3cret@db/darkroom",
            "postgresql://render@db/darkroom?password=s3cret", "host=db dbname=darkroom password=s3cret",
            "host=db password = 's3 cret'", "postgresql://render:p%zzass@db/darkroom",
            "POSTGRESQL://render:s3cret@db/darkroom",
        ] {
            #expect(ConnectionString.carriesPassword(url), "\(url)")
        }
        for url in [
            "postgresql://render@db.internal/darkroom", "postgresql:///darkroom?host=/run/postgresql",
            "host=db dbname=darkroom user=render", "postgresql://[::1]:5432/darkroom", "postgresql://db/pass:word@x",
        ] {
            #expect(!ConnectionString.carriesPassword(url), "\(url)")
        }
    }

    @Test func aConnectionErrorNeverEchoesThePassword() throws {
        // libpq quotes the part of a URI it cannot percent-decode, here the password.
        for url in ["postgresql://render:p%zzass-word@127.0.0.1:1/darkroom", "host=127.0.0.1 port=1 password=hunter22"]
        {
            let error = try #require(throws: PostgresError.self) { _ = try PostgresConnection(url) }
            #expect(error.code == .connectionFailed)
            #expect(!error.message.contains("p%zzass-word") && !error.message.contains("hunter22"), "\(error.message)")
        }
        #expect(
            ConnectionString.redacting("bad token \"p%41ss\" (pAss)", secretsOf: "postgresql://u:p%41ss@h/d")
                == "bad token \"***\" (***)")
    }
}
