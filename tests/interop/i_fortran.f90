! i_fortran.f90 — a Fortran MPI-IO program, for dropin.sh.
!
! Fortran's MPI_FILE_* bindings belong to the MPI library; they call the
! C functions, so a preloaded libresonio-mpiio serves them as it serves C
! programs, and the file handle crosses the language boundary through
! MPI_File_c2f/f2c.  The program prints which implementation it got
! (resonio's file info lists its resonio_indep_method hint; ROMIO's and
! OMPIO's do not) and "No Errors" when all is well, like the C programs.
!
! Each rank writes 100 integers through a vector view (blocks of 10,
! ranks interleaved): write_all, then write_at of the second half again
! with iwrite_at + MPI_Wait; reads back with read_all after a seek and
! read_at_all; get_size, get_position, set_size are checked.  dropin.sh
! compares the files of the two runs byte for byte and, with -mode read,
! has each implementation read the other's file.
program i_fortran
  use mpi
  implicit none
  integer, parameter :: n = 100, blk = 10
  integer :: ierr, rank, nprocs, fh, ftype, i, errs, total, cnt, req, nkeys, k, flag_int
  integer(kind=MPI_OFFSET_KIND) :: disp, size, pos, off
  integer :: buf(n), got(n), status(MPI_STATUS_SIZE), info
  character(len=4096) :: fname, arg
  character(len=MPI_MAX_INFO_KEY) :: key
  logical :: writing, resonio
  integer :: have(2), lo(2), sums(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  fname = 'i_fortran.dat'
  writing = .true.
  do i = 1, command_argument_count() - 1
    call get_command_argument(i, arg)
    if (arg == '-fname') call get_command_argument(i + 1, fname)
    if (arg == '-mode') then
      call get_command_argument(i + 1, arg)
      writing = arg /= 'read'
    end if
  end do
  errs = 0
  do i = 1, n
    buf(i) = rank * 100000 + i * 7
  end do

  call MPI_Type_vector(n / blk, blk, blk * nprocs, MPI_INTEGER, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  if (writing) then
    call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                       fh, ierr)
  else
    call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  end if
  if (ierr /= MPI_SUCCESS) then
    print *, '[', rank, '] MPI_File_open failed'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if

  ! which implementation: resonio lists its own hints
  call MPI_File_get_info(fh, info, ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  flag_int = 0
  do k = 0, nkeys - 1
    call MPI_Info_get_nthkey(info, k, key, ierr)
    if (key == 'resonio_indep_method') flag_int = 1
  end do
  call MPI_Info_free(info, ierr)
  have = (/ flag_int, -flag_int /)
  call MPI_Allreduce(have, lo, 2, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  resonio = lo(1) == 1
  if (rank == 0) then
    if (lo(1) /= -lo(2)) then
      print '(a)', 'implementation: mixed'
    else if (resonio) then
      print '(a)', 'implementation: resonio'
    else
      print '(a)', 'implementation: native'
    end if
  end if
  if (lo(1) /= -lo(2)) errs = errs + 1

  disp = rank * blk * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  if (writing) then
    call MPI_File_write_all(fh, buf, n, MPI_INTEGER, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    if (ierr /= MPI_SUCCESS .or. cnt /= n) errs = errs + 1
    off = n / 2
    call MPI_File_iwrite_at(fh, off, buf(n / 2 + 1), n / 2, MPI_INTEGER, req, ierr)
    call MPI_Wait(req, status, ierr)
    call MPI_File_sync(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_sync(fh, ierr)
  end if
  got = 0
  call MPI_File_seek(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  call MPI_File_read_all(fh, got, n, MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. cnt /= n) errs = errs + 1
  do i = 1, n
    if (got(i) /= buf(i)) errs = errs + 1
  end do
  call MPI_File_get_position(fh, pos, ierr)
  if (pos /= n) errs = errs + 1
  got = 0
  call MPI_File_read_at_all(fh, 10_MPI_OFFSET_KIND, got, n - 10, MPI_INTEGER, status, ierr)
  do i = 1, n - 10
    if (got(i) /= buf(i + 10)) errs = errs + 1
  end do
  call MPI_File_get_size(fh, size, ierr)
  if (size /= int(n, MPI_OFFSET_KIND) * 4 * nprocs) errs = errs + 1
  call MPI_File_close(fh, ierr)
  if (fh /= MPI_FILE_NULL) errs = errs + 1
  call MPI_Type_free(ftype, ierr)

  if (errs > 0) print *, '[', rank, ']', errs, 'errors'
  ! arrays, as in the allreduce above (the buffers' rank must not vary)
  call MPI_Allreduce((/ errs /), sums, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  total = sums(1)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', total, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program i_fortran
