-- Seconds before an account name from an address may try to sign in again (SignInRecords.wait).
SELECT darkroom.sign_in_wait($1, $2) AS wait
