[playlist]
NumberOfEntries=3
File1=one.mp3
Title1=One
Length1=60
file2=http://example.com/two.mp3
Length2=-1
FILE10=ten.mp3
; comment
[other]
File3=ignored
