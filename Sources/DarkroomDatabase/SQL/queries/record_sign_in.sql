-- Records a sign-in's outcome; answers the wait from now on (SignInRecords.record).
SELECT darkroom.record_sign_in($1, $2, $3) AS wait
